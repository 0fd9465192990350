import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { END, START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(allBackends())('ctx.task and ctx.idempotencyKey on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('a task is stored before it resolves and handed back, round-tripped, on every re-run at that super-step', async () => {
    let calls = 0;
    let failsLeft = 2;
    const keys: string[] = [];
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('pay', async (_s, ctx) => {
        keys.push(ctx.idempotencyKey('charge'));
        const charge = await ctx.task('charge', async () => {
          calls += 1;
          return { id: 'ch_1', at: new Date('2026-01-02T03:04:05.000Z'), cents: 1250n };
        });
        if (failsLeft-- > 0) throw new Error('ledger down');
        return { log: [`${charge.id} ${charge.at.toISOString()} ${charge.cents}`] };
      })
      .addEdge(START, 'pay')
      .compile({ checkpointer });
    await expect(app.invoke({ log: [] }, { thread: 'pay' })).rejects.toMatchObject({ code: 'NODE_FAILED' });
    await expect(app.resume('pay')).rejects.toMatchObject({ code: 'NODE_FAILED' });
    const done = await app.resume('pay');
    expect(done.state.log).toEqual(['ch_1 2026-01-02T03:04:05.000Z 1250']);
    expect(calls).toBe(1);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^flow-[A-Za-z0-9_-]{43}$/);
  });

  it('a node that changes a task value gets the stored one on every re-run: after an interrupt, an error, a retry', async () => {
    type T = { seen: string[] };
    const seen: string[] = [];
    let failsLeft = 2;
    const app = new StateGraph<T>()
      .addNode(
        'pay',
        async (_s, ctx) => {
          const charge = await ctx.task('charge', () => ({ n: 0, raw: Buffer.from('ok') }));
          seen.push(`${charge.n} ${charge.raw.constructor.name}`);
          charge.n += 1; // the node's own object: what was stored must not change with it
          if (seen.length === 1) ctx.interrupt('approve?');
          if (failsLeft-- > 0) throw new Error('ledger down');
          return { seen };
        },
        { retry: { maxAttempts: 2, initialDelayMs: 0 } },
      )
      .addEdge(START, 'pay')
      .compile({ checkpointer });
    expect((await app.invoke({ seen: [] }, { thread: 'mutated' })).status).toBe('interrupted');
    // Attempt 1 (after the answer) and its retry both fail; the failure's checkpoint carries the value on.
    await expect(app.resume('mutated', { answer: 'yes' })).rejects.toMatchObject({ code: 'NODE_FAILED' });
    await app.resume('mutated');
    const stored = seen.map((line) => line.split(' ')[0]);
    expect(stored).toEqual(['0', '0', '0', '0']);
    // The first run got fn's own value; every re-run, the retry in the same call too, the serializer's.
    expect(seen.slice(1)).toEqual(['0 Uint8Array', '0 Uint8Array', '0 Uint8Array']);
  });

  it('an fn that throws stores nothing and the error propagates; the next run calls it again', async () => {
    let calls = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('flaky', async (_s, ctx) => {
        const v = await ctx.task('call', async () => {
          calls += 1;
          if (calls === 1) throw new Error('timeout');
          return 'ok';
        });
        return { log: [v] };
      })
      .addEdge(START, 'flaky')
      .compile({ checkpointer });
    const error = await app.invoke({ log: [] }, { thread: 'task-throws' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'NODE_FAILED' });
    expect((error.cause as Error).message).toBe('timeout');
    expect(await app.resume('task-throws')).toMatchObject({ status: 'done', state: { log: ['ok'] } });
    expect(calls).toBe(2);
  });

  it('names are unique per run of a node; nodes and super-steps never share a value or a key', async () => {
    const seen: string[] = [];
    const keys = new Set<string>();
    const app = new StateGraph<{ n: number; log: string[] }>({ reducers: { log: concat } })
      .addNode('a', async (s, ctx) => {
        keys.add(ctx.idempotencyKey('x'));
        keys.add(ctx.idempotencyKey('y'));
        seen.push(await ctx.task('x', () => `a${s.n}`));
        await expect(ctx.task('x', () => 'again')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        return { n: s.n + 1 };
      })
      .addNode('b', async (s, ctx) => {
        keys.add(ctx.idempotencyKey('x'));
        seen.push(await ctx.task('x', () => `b${s.n}`));
        return { log: ['b'] };
      })
      .addEdge(START, 'a')
      .addEdge(START, 'b')
      .addConditionalEdges('a', (s) => (s.n < 2 ? 'a' : END))
      .compile({ checkpointer });
    await app.invoke({ n: 0, log: [] }, { thread: 'names' });
    expect(seen.sort()).toEqual(['a0', 'a1', 'b0']);
    expect(keys.size).toBe(5);
  });

  it('rejects bad names and a missing fn with InvalidArgumentError', async () => {
    const errors: unknown[] = [];
    const app = new StateGraph<S>()
      .addNode('n', async (_s, ctx) => {
        for (const name of ['', 'x'.repeat(501), 'a\u0000b', '\ud800', 7]) {
          errors.push(await ctx.task(name as string, () => 1).catch((e) => e));
          try {
            ctx.idempotencyKey(name as string);
          } catch (e) {
            errors.push(e);
          }
        }
        errors.push(await ctx.task('f', 'nope' as never).catch((e) => e));
        return {};
      })
      .addEdge(START, 'n')
      .compile({ checkpointer });
    await app.invoke({ log: [] }, { thread: 'bad-names' });
    expect(errors).toHaveLength(11);
    for (const e of errors) expect(e).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
