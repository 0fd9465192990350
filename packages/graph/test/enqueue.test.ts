import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

describe.each(allBackends())('enqueue on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('writes the first checkpoint, runs nothing, and resolves with the thread; resume runs it', async () => {
    let runs = 0;
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => {
        runs += 1;
        return { n: s.n + 1 };
      })
      .addEdge(START, 'inc')
      .compile({ checkpointer });
    expect(await app.enqueue({ n: 1 }, { thread: 'queued' })).toEqual({ thread: 'queued' });
    expect(runs).toBe(0);
    expect(await app.getState('queued')).toMatchObject({
      step: 0,
      next: ['inc'],
      state: { n: 1 },
      done: false,
    });
    await expect(app.enqueue({ n: 1 }, { thread: 'queued' })).rejects.toMatchObject({ code: 'THREAD_BUSY' });
    expect(await app.resume('queued')).toMatchObject({ status: 'done', state: { n: 2 } });
    const { thread } = await app.enqueue({ n: 5 });
    expect(thread).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('on an existing thread: a finished one gets a new run, nothing runs; any other is ThreadBusy, nothing written', async () => {
    let runs = 0;
    let fail = false;
    const app = new StateGraph<{ n: number; ask?: boolean }>({ reducers: { n: (a, b) => a + b } })
      .addNode('inc', (s, ctx) => {
        runs += 1;
        if (fail) throw new Error('down');
        if (s.ask) ctx.interrupt('ok?');
        return { n: 1 };
      })
      .addEdge(START, 'inc')
      .compile({ checkpointer });
    await app.invoke({ n: 0 }, { thread: 'again-done' });
    runs = 0;
    // As invoke would: the input goes through the reducers onto the latest state, the steps go on.
    expect(await app.enqueue({ n: 10 }, { thread: 'again-done' })).toEqual({ thread: 'again-done' });
    expect(runs).toBe(0);
    expect(await app.getState('again-done')).toMatchObject({ step: 2, next: ['inc'], state: { n: 11 } });
    expect(await app.resume('again-done')).toMatchObject({ status: 'done', state: { n: 12 } });

    await app.invoke({ n: 0, ask: true }, { thread: 'again-interrupted' });
    fail = true;
    await app.invoke({ n: 0 }, { thread: 'again-failed' }).catch(() => {});
    fail = false;
    await app.enqueue({ n: 0 }, { thread: 'again-enqueued' });
    for (const thread of ['again-interrupted', 'again-failed', 'again-enqueued']) {
      const before = (await app.history(thread)).map((c) => [c.step, c.revision]);
      await expect(app.enqueue({ n: 1 }, { thread })).rejects.toMatchObject({ code: 'THREAD_BUSY', thread });
      expect((await app.history(thread)).map((c) => [c.step, c.revision])).toEqual(before);
      expect(await checkpointer.getLease(thread)).toBeUndefined();
    }

    // Of concurrent enqueues of one new thread, one writes its first checkpoint; the others are ThreadBusy.
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map(() => app.enqueue({ n: 0 }, { thread: 'again-race' })),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes)
      if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'THREAD_BUSY' });
    expect((await app.history('again-race')).map((c) => c.step)).toEqual([0]);
  });

  it('rejects options that are not an object, writing nothing', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'inc')
      .compile({ checkpointer });
    const before = (await checkpointer.listThreads()).length;
    for (const options of ['order-1', 5, ['order-1']]) {
      await expect(app.enqueue({ n: 1 }, options as never)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('enqueue options must be an object'),
      });
    }
    expect(await checkpointer.listThreads()).toHaveLength(before);
  });

  it('needs a checkpointer', async () => {
    const app = new StateGraph()
      .addNode('n', () => ({}))
      .addEdge(START, 'n')
      .compile();
    await expect(app.enqueue({})).rejects.toMatchObject({ code: 'NO_CHECKPOINTER' });
  });
});
