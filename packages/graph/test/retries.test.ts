import type { Checkpointer } from '@flow/core';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { END, NodeError, START, StateGraph } from '../src/index.js';
import { retryDelay } from '../src/node-options.js';
import { allBackends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(allBackends())('retries on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('re-runs a node that throws until it succeeds, in the same call, and commits once', async () => {
    let calls = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode(
        'flaky',
        () => {
          calls += 1;
          if (calls < 3) throw new Error(`down ${calls}`);
          return { log: [`ok after ${calls}`] };
        },
        { retry: { maxAttempts: 5, initialDelayMs: 1, jitter: false } },
      )
      .addEdge(START, 'flaky')
      .addEdge('flaky', END)
      .compile({ checkpointer });
    const run = await app.invoke({ log: [] }, { thread: 'flaky' });
    expect(run).toMatchObject({ status: 'done', step: 1, state: { log: ['ok after 3'] } });
    expect(calls).toBe(3);
    expect((await app.history('flaky')).map((c) => c.step)).toEqual([1, 0]);
  });

  it('gives up after maxAttempts with a NodeError carrying attempts and the last error', async () => {
    let calls = 0;
    const app = new StateGraph<S>()
      .addNode(
        'down',
        () => {
          calls += 1;
          throw new Error(`down ${calls}`);
        },
        { retry: { maxAttempts: 3, initialDelayMs: 1 } },
      )
      .addEdge(START, 'down')
      .compile({ checkpointer });
    const error = (await app.invoke({ log: [] }, { thread: 'down' }).catch((e) => e)) as NodeError;
    expect(error).toBeInstanceOf(NodeError);
    expect(error).toMatchObject({ code: 'NODE_FAILED', node: 'down', attempts: 3, step: 0 });
    expect((error.cause as Error).message).toBe('down 3');
    expect(error.message).toContain('after 3 attempts');
    expect(calls).toBe(3);
  });

  it('retryOn decides which errors are retried', async () => {
    let calls = 0;
    const app = new StateGraph<S>()
      .addNode(
        'picky',
        () => {
          calls += 1;
          throw Object.assign(new Error('bad request'), { status: 400 });
        },
        {
          retry: {
            maxAttempts: 5,
            initialDelayMs: 1,
            retryOn: (e) => (e as { status?: number }).status !== 400,
          },
        },
      )
      .addEdge(START, 'picky')
      .compile({ checkpointer });
    await expect(app.invoke({ log: [] }, { thread: 'picky' })).rejects.toMatchObject({ attempts: 1 });
    expect(calls).toBe(1);
  });

  it('never retries an interrupt', async () => {
    let calls = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode(
        'ask',
        (_s, ctx) => {
          calls += 1;
          return { log: [ctx.interrupt<string>('ok?')] };
        },
        { retry: { maxAttempts: 5, initialDelayMs: 1 } },
      )
      .addEdge(START, 'ask')
      .compile({ checkpointer });
    expect(await app.invoke({ log: [] }, { thread: 'ask-retry' })).toMatchObject({ status: 'interrupted' });
    expect(calls).toBe(1);
  });
});

describe('retry backoff', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits initialDelayMs, then times backoffFactor, capped at maxDelayMs (fake timers)', async () => {
    vi.useFakeTimers();
    const at: number[] = [];
    const app = new StateGraph<S>()
      .addNode(
        'slow-fix',
        () => {
          at.push(Date.now());
          if (at.length < 5) throw new Error('not yet');
          return {};
        },
        {
          retry: { maxAttempts: 5, initialDelayMs: 100, backoffFactor: 3, maxDelayMs: 1_000, jitter: false },
        },
      )
      .addEdge(START, 'slow-fix')
      .compile();
    const run = app.invoke({ log: [] });
    await vi.runAllTimersAsync();
    expect(await run).toMatchObject({ status: 'done' });
    const waits = at.slice(1).map((t, i) => t - (at[i] as number));
    expect(waits).toEqual([100, 300, 900, 1_000]);
  });

  it('jitter picks a wait between half the delay and all of it', () => {
    const policy = {
      maxAttempts: 9,
      initialDelayMs: 100,
      backoffFactor: 2,
      maxDelayMs: 10_000,
      jitter: true,
      retryOn: () => true,
    };
    expect(retryDelay(policy, 3, () => 0)).toBe(200);
    expect(retryDelay(policy, 3, () => 1)).toBe(400);
    expect(retryDelay({ ...policy, jitter: false }, 3, () => 0)).toBe(400);
    for (let i = 0; i < 100; i++) {
      const d = retryDelay(policy, 2);
      expect(d).toBeGreaterThanOrEqual(100);
      expect(d).toBeLessThanOrEqual(200);
    }
  });

  it('rejects retry and timeout options out of range with InvalidArgumentError', () => {
    const bad: unknown[] = [
      { retry: { maxAttempts: 0 } },
      { retry: { maxAttempts: 1.5 } },
      { retry: { maxAttempts: 2, initialDelayMs: -1 } },
      { retry: { maxAttempts: 2, backoffFactor: 0.5 } },
      { retry: { maxAttempts: 2, maxDelayMs: Number.POSITIVE_INFINITY } },
      { retry: { maxAttempts: 2, jitter: 'yes' } },
      { retry: { maxAttempts: 2, retryOn: 'all' } },
      { retry: null },
      { timeoutMs: 0 },
      { timeoutMs: -5 },
      { timeoutMs: 1.5 },
      { timeoutMs: 2 ** 31 },
      'fast',
    ];
    for (const options of bad) {
      expect(
        () => new StateGraph().addNode('n', () => ({}), options as never),
        JSON.stringify(options),
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });
});
