import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { RunCancelled, START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(allBackends())('cancellation on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  /** a → b → c; b waits on its signal the first time (and records what it saw). */
  function pipeline() {
    const seen: { bAborted: boolean; runs: Record<string, number> } = { bAborted: false, runs: {} };
    const step = (name: string) => async (_s: S, ctx: { signal: AbortSignal }) => {
      seen.runs[name] = (seen.runs[name] ?? 0) + 1;
      if (name === 'b' && seen.runs.b === 1) {
        await new Promise<void>((resolve) =>
          ctx.signal.addEventListener('abort', () => {
            seen.bAborted = true;
            resolve();
          }),
        );
        return { log: ['b aborted'] };
      }
      return { log: [name] };
    };
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('a', step('a'))
      .addNode('b', step('b'))
      .addNode('c', step('c'))
      .addEdge(START, 'a')
      .addEdge('a', 'b')
      .addEdge('b', 'c')
      .compile({ checkpointer });
    return { app, seen };
  }

  it('aborting mid-run reaches the running node, rejects with RunCancelled, keeps what was committed; resume goes on', async () => {
    const { app, seen } = pipeline();
    const controller = new AbortController();
    const running = app.invoke({ log: [] }, { thread: 'cancel', signal: controller.signal });
    while (seen.runs.b !== 1) await new Promise((r) => setTimeout(r, 5));
    controller.abort(new Error('user pressed stop'));
    const error = (await running.catch((e) => e)) as RunCancelled;
    expect(error).toBeInstanceOf(RunCancelled);
    expect(error).toMatchObject({ code: 'RUN_CANCELLED', thread: 'cancel', step: 1 });
    expect(error.message).toContain('user pressed stop');
    expect(seen.bAborted).toBe(true);
    expect(await app.getState('cancel')).toMatchObject({ step: 1, next: ['b'], state: { log: ['a'] } });
    const done = await app.resume('cancel');
    expect(done).toMatchObject({ status: 'done', state: { log: ['a', 'b', 'c'] } });
    expect(seen.runs).toEqual({ a: 1, b: 2, c: 1 });
  });

  it('an aborted signal stops invoke and resume before anything is written', async () => {
    const { app, seen } = pipeline();
    const signal = AbortSignal.abort();
    await expect(app.invoke({ log: [] }, { thread: 'pre', signal })).rejects.toMatchObject({
      code: 'RUN_CANCELLED',
    });
    expect(await app.getState('pre')).toBeUndefined();
    await app.enqueue({ log: [] }, { thread: 'pre' });
    await expect(app.resume('pre', { signal })).rejects.toMatchObject({ code: 'RUN_CANCELLED', step: 0 });
    expect((await app.history('pre')).map((c) => c.step)).toEqual([0]);
    expect(seen.runs).toEqual({});
  });

  it('streams stop with RunCancelled too, after the events of the committed steps', async () => {
    const { app } = pipeline();
    const controller = new AbortController();
    const steps: number[] = [];
    const stream = app.stream({ log: [] }, { thread: 'cancel-stream', signal: controller.signal });
    const error = await (async () => {
      for await (const ev of stream) {
        steps.push(ev.step);
        setTimeout(() => controller.abort(), 20);
      }
    })().catch((e) => e);
    expect(error).toMatchObject({ code: 'RUN_CANCELLED' });
    expect(steps).toEqual([1]);
    const resumed: number[] = [];
    for await (const ev of app.streamResume('cancel-stream')) resumed.push(ev.step);
    expect(resumed).toEqual([3, 4]);
  });

  it('aborting while a node waits to be retried starts no further attempt: its code and tasks never run again', async () => {
    let attempts = 0;
    let charged = 0;
    const controller = new AbortController();
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode(
        'pay',
        async (_s, ctx) => {
          attempts += 1;
          await ctx.task(`charge ${attempts}`, () => {
            charged += 1;
          });
          if (attempts === 1) {
            // The user gives up while the engine waits out the 300 ms before the next attempt.
            setTimeout(() => controller.abort('user left'), 50);
            throw new Error('gateway busy');
          }
          return { log: ['paid'] };
        },
        { retry: { maxAttempts: 3, initialDelayMs: 300, jitter: false } },
      )
      .addEdge(START, 'pay')
      .compile({ checkpointer });
    await expect(
      app.invoke({ log: [] }, { thread: 'c-backoff', signal: controller.signal }),
    ).rejects.toBeInstanceOf(RunCancelled);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect({ attempts, charged }).toEqual({ attempts: 1, charged: 1 });
    const done = await app.resume('c-backoff');
    expect(done.state.log).toEqual(['paid']);
    expect({ attempts, charged }).toEqual({ attempts: 2, charged: 2 });
  });

  it('a node that ignores its signal starts no task after the cancellation: the side effect runs once, on resume', async () => {
    let charged = 0;
    const controller = new AbortController();
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('pay', async (_s, ctx) => {
        if (!controller.signal.aborted) setTimeout(() => controller.abort('user left'), 30);
        await new Promise((resolve) => setTimeout(resolve, 150)); // deaf to ctx.signal
        await ctx.task('charge', () => {
          charged += 1;
        });
        return { log: ['paid'] };
      })
      .addEdge(START, 'pay')
      .compile({ checkpointer });
    await expect(
      app.invoke({ log: [] }, { thread: 'c-deaf', signal: controller.signal }),
    ).rejects.toBeInstanceOf(RunCancelled);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(charged).toBe(0);
    expect((await app.resume('c-deaf')).state.log).toEqual(['paid']);
    expect(charged).toBe(1);
  });

  it('rejects a signal that is not an AbortSignal', async () => {
    const { app } = pipeline();
    await expect(app.invoke({ log: [] }, { signal: 'stop' as never })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });
});
