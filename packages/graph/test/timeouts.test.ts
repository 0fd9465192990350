import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { NodeError, NodeTimeout, START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(allBackends())('timeouts on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('a node that ignores its timeout fails with NodeTimeout, and its late result is never applied', async () => {
    let aborted: unknown;
    let finished = false;
    let started = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode(
        'stuck',
        async (_s, ctx) => {
          started = Date.now();
          ctx.signal.addEventListener('abort', () => {
            aborted = ctx.signal.reason;
          });
          await sleep(1500); // ignores the signal (long: a loaded machine's failure write can take 300 ms)
          finished = true;
          return { log: ['late'] };
        },
        { timeoutMs: 50 },
      )
      .addEdge(START, 'stuck')
      .compile({ checkpointer });
    const error = (await app.invoke({ log: [] }, { thread: 'stuck' }).catch((e) => e)) as NodeError;
    // The call rejected long before the node's own 1.5 s were up (the failed run's write included).
    expect(finished).toBe(false);
    expect(Date.now() - started).toBeLessThan(1500);
    expect(error).toBeInstanceOf(NodeError);
    expect(error.cause).toBeInstanceOf(NodeTimeout);
    expect(error.cause).toMatchObject({ code: 'NODE_TIMEOUT', node: 'stuck', timeoutMs: 50 });
    expect(aborted).toBe(error.cause);
    await sleep(1600);
    expect(finished).toBe(true);
    const latest = await app.getState('stuck');
    expect(latest?.state).toEqual({ log: [] });
    expect(latest?.next).toEqual(['stuck']);
  });

  it('a timed-out run that goes on starts no task: the side effect runs once, when the node is resumed', async () => {
    let charged = 0;
    let runs = 0;
    const app = new StateGraph<{ log: string[] }>({ reducers: { log: (a, b) => [...a, ...b] } })
      .addNode(
        'pay',
        async (_s, ctx) => {
          runs += 1;
          if (runs === 1) await new Promise((resolve) => setTimeout(resolve, 700)); // ignores its signal
          await ctx.task('charge', () => {
            charged += 1;
          });
          return { log: ['paid'] };
        },
        { timeoutMs: 400 },
      )
      .addEdge(START, 'pay')
      .compile({ checkpointer });
    await expect(app.invoke({ log: [] }, { thread: 'deaf-timeout' })).rejects.toMatchObject({
      code: 'NODE_FAILED',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(charged).toBe(0);
    expect((await app.resume('deaf-timeout')).state.log).toEqual(['paid']);
    expect({ runs, charged }).toEqual({ runs: 2, charged: 1 });
  });

  it('a timeout is retried like any error', async () => {
    let calls = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode(
        'slow-once',
        async (_s, ctx) => {
          calls += 1;
          if (calls === 1)
            await new Promise((_, reject) =>
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
            );
          return { log: [`run ${calls}`] };
        },
        { timeoutMs: 30, retry: { maxAttempts: 2, initialDelayMs: 1 } },
      )
      .addEdge(START, 'slow-once')
      .compile({ checkpointer });
    expect(await app.invoke({ log: [] }, { thread: 'slow-once' })).toMatchObject({
      status: 'done',
      state: { log: ['run 2'] },
    });
    expect(calls).toBe(2);
  });
});
