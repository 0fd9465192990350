import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

describe.each(allBackends())('leases on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('a call holds a lease while it runs, renews it on a timer, and releases it at the end', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const app = new StateGraph<{ n: number }>()
      .addNode('slow', async (s) => {
        await gate;
        return { n: s.n + 1 };
      })
      .addEdge(START, 'slow')
      // 600 ms, renewed every 200: with 240, a CI machine under load once let the lease lapse before the read.
      .compile({ checkpointer, leaseMs: 600 });
    const running = app.invoke({ n: 0 }, { thread: 'leased' });
    while ((await checkpointer.get('leased')) === undefined) await new Promise((r) => setTimeout(r, 5));
    const lease = await checkpointer.getLease('leased');
    expect(lease).toMatchObject({ thread: 'leased', pid: process.pid });
    // Two and a half lease lengths later the lease is still live: renewed every leaseMs / 3, with no step written.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await checkpointer.getLease('leased')).toMatchObject({ owner: lease?.owner });
    // A resume without an answer leaves a live run alone and writes nothing.
    await expect(app.resume('leased')).rejects.toMatchObject({ code: 'THREAD_BUSY' });
    expect((await app.history('leased')).map((c) => c.step)).toEqual([0]);
    release();
    expect(await running).toMatchObject({ status: 'done', state: { n: 1 } });
    expect(await checkpointer.getLease('leased')).toBeUndefined();
  });

  it('a failed or interrupted call releases its lease too', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('ask', (_s, ctx) => {
        ctx.interrupt('ok?');
        throw new Error('unreachable');
      })
      .addEdge(START, 'ask')
      .compile({ checkpointer });
    await app.invoke({ n: 0 }, { thread: 'released' });
    expect(await checkpointer.getLease('released')).toBeUndefined();
  });

  it('a renewal still in flight when the call ends does not take the lease back after the release', async () => {
    // A store that answers renewals late (a pool runs them on another connection than the release): each
    // renewal lands 45 ms after its tick, so one is always in flight when the call releases its lease.
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const slowRenewals = new Proxy(checkpointer, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        if (key === 'renewLease') {
          return async (...args: Parameters<Checkpointer['renewLease']>) => {
            await sleep(45);
            return target.renewLease(...args);
          };
        }
        return value.bind(target);
      },
    });
    const app = new StateGraph<{ n: number }>()
      .addNode('work', async (s) => {
        await sleep(100);
        return { n: s.n + 1 };
      })
      .addEdge(START, 'work')
      .compile({ checkpointer: slowRenewals, leaseMs: 90 });
    for (const thread of ['late-renewal-1', 'late-renewal-2', 'late-renewal-3']) {
      expect(await app.invoke({ n: 0 }, { thread })).toMatchObject({ status: 'done' });
      expect(await checkpointer.getLease(thread)).toBeUndefined();
      // Past every renewal sent while the call ran: none of them took the lease again.
      await sleep(60);
      expect(await checkpointer.getLease(thread)).toBeUndefined();
    }
  });

  it('compile checks leaseMs', () => {
    const graph = new StateGraph().addNode('n', () => ({})).addEdge(START, 'n');
    for (const leaseMs of [0, 29, 1.5, 86_400_001, '1s']) {
      expect(() => graph.compile({ checkpointer, leaseMs: leaseMs as number })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    }
    expect(() => graph.compile({ checkpointer, leaseMs: 30 })).not.toThrow();
  });
});
