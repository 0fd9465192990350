import type { Checkpointer } from '@flow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AlreadyResumed,
  END,
  NodeError,
  START,
  StateGraph,
  StepLimitExceeded,
  ThreadBusy,
  ThreadNotFound,
} from '../src/index.js';
import { backends } from './support/backends.js';

type S = { n: number; log: string[]; note?: string };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(backends)('resume on $name', ({ create }) => {
  let checkpointer: Checkpointer;
  beforeEach(async () => {
    checkpointer = await create();
  });
  afterEach(async () => {
    await checkpointer.close();
  });

  /** count → count → … until n reaches `limit`; `fail` makes the node throw while it is true. */
  function counter(opts: { limit?: number; maxSteps?: number; fail?: () => boolean } = {}) {
    const calls = { count: 0 };
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('count', (s) => {
        calls.count += 1;
        if (opts.fail?.()) throw new Error('flaky service');
        return { n: s.n + 1, log: [`n=${s.n + 1}`] };
      })
      .addEdge(START, 'count')
      .addConditionalEdges('count', (s) => (s.n < (opts.limit ?? 3) ? 'count' : END))
      .compile({ checkpointer, maxSteps: opts.maxSteps });
    return { app, calls };
  }

  it('rejects an unknown thread with ThreadNotFound', async () => {
    const { app } = counter();
    const error = await app.resume('nobody').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadNotFound);
    expect(error).toMatchObject({ code: 'THREAD_NOT_FOUND', thread: 'nobody' });
  });

  it('resolves a finished run with its result and runs nothing', async () => {
    const { app, calls } = counter();
    const first = await app.invoke({ n: 0, log: [] }, { thread: 'done' });
    const ran = calls.count;
    expect(await app.resume('done')).toEqual(first);
    expect(await app.resume('done', { answer: undefined })).toEqual(first);
    expect(calls.count).toBe(ran);
    expect(await app.history('done')).toHaveLength(first.step + 1);
  });

  it('rejects an answer sent to a finished run with AlreadyResumed', async () => {
    const { app } = counter();
    await app.invoke({ n: 0, log: [] }, { thread: 'finished' });
    const error = await app.resume('finished', { answer: 'late' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AlreadyResumed);
    expect(error).toMatchObject({ code: 'ALREADY_RESUMED' });
  });

  it('a node error rejects with NodeError, keeps the last committed checkpoint, and resume re-runs it', async () => {
    let broken = true;
    const { app, calls } = counter({ fail: () => broken });
    const error = (await app
      .invoke({ n: 10, log: [] }, { thread: 'flaky' })
      .catch((e: unknown) => e)) as NodeError;
    expect(error).toBeInstanceOf(NodeError);
    expect(error).toMatchObject({ code: 'NODE_FAILED', node: 'count', step: 0, thread: 'flaky' });
    expect((error.cause as Error).message).toBe('flaky service');
    // The failure is recorded at step 1: the input's state and frontier, and what failed.
    expect(await app.getState('flaky')).toMatchObject({
      step: 1,
      next: ['count'],
      interrupted: false,
      state: { n: 10 },
      error: { node: 'count', message: 'flaky service' },
    });
    broken = false;
    const before = calls.count;
    expect(await app.resume('flaky')).toMatchObject({ status: 'done', state: { n: 11 }, step: 3 });
    expect(calls.count - before).toBe(1);
  });

  it('NodeError carries the step the node read, mid-run', async () => {
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('count', (s, ctx) => {
        if (s.n === 2) throw new TypeError(`bad at ${ctx.step}`);
        return { n: s.n + 1 };
      })
      .addEdge(START, 'count')
      .addEdge('count', 'count')
      .compile({ checkpointer });
    const error = await app.invoke({ n: 0, log: [] }, { thread: 'mid' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NODE_FAILED', node: 'count', step: 2, thread: 'mid' });
    expect((error as NodeError).cause).toBeInstanceOf(TypeError);
    expect(await app.getState('mid')).toMatchObject({ step: 3, state: { n: 2 }, error: { node: 'count' } });
  });

  it('a router that throws rejects with NodeError naming the node it routes from', async () => {
    const app = new StateGraph<S>()
      .addNode('a', () => ({ n: 1 }))
      .addConditionalEdges('a', () => {
        throw new Error('no route');
      })
      .addEdge(START, 'a')
      .compile({ checkpointer });
    await expect(app.invoke({ n: 0, log: [] }, { thread: 'router' })).rejects.toMatchObject({
      code: 'NODE_FAILED',
      node: 'a',
      step: 0,
    });
  });

  it('maxSteps rejects with StepLimitExceeded and the run stays resumable', async () => {
    const { app } = counter({ limit: 5, maxSteps: 2 });
    const error = await app.invoke({ n: 0, log: [] }, { thread: 'limit' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StepLimitExceeded);
    // step is the checkpoint that records the failure: the state after the last super-step, no node.
    expect(error).toMatchObject({ code: 'STEP_LIMIT', thread: 'limit', step: 3, maxSteps: 2 });
    expect(await app.getState('limit')).toMatchObject({
      step: 3,
      state: { n: 2 },
      next: ['count'],
      error: { node: null },
    });
    await expect(app.resume('limit')).rejects.toMatchObject({ code: 'STEP_LIMIT', step: 7 });
    expect(await app.resume('limit')).toMatchObject({ status: 'done', state: { n: 5 }, step: 9 });
  });

  it('defaults maxSteps to 100', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('spin', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'spin')
      .addEdge('spin', 'spin')
      .compile({ checkpointer });
    await expect(app.invoke({ n: 0 }, { thread: 'spin' })).rejects.toMatchObject({
      code: 'STEP_LIMIT',
      step: 101,
    });
    expect((await app.getState('spin'))?.state).toEqual({ n: 100 });
  });

  it('claims with the next step (state plus patch, not interrupted, the frontier) before running a node', async () => {
    let seen: unknown;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('ask', async (_s, ctx) => {
        if (ctx.step === 2) seen = await checkpointer.get(ctx.thread);
        return { log: [String(ctx.interrupt('note?'))] };
      })
      .addEdge(START, 'ask')
      .compile({ checkpointer });
    await app.invoke({ n: 0, log: ['x'] }, { thread: 'claim' });
    const done = await app.resume('claim', { answer: 'ok', patch: { n: 7, log: ['replaced'] } });
    expect(seen).toMatchObject({
      step: 2,
      state: { n: 7, log: ['replaced'] },
      next: ['ask'],
      interrupted: false,
      interruptNode: null,
      interruptPayload: null,
    });
    // The patch replaced `log` (no reducer); the node's update then went through the reducer.
    expect(done.state).toEqual({ n: 7, log: ['replaced', 'ok'] });
  });

  it('a patch amends the state of a crashed run before going on', async () => {
    let broken = true;
    const { app } = counter({ fail: () => broken });
    await expect(app.invoke({ n: 0, log: [] }, { thread: 'patch' })).rejects.toBeInstanceOf(NodeError);
    broken = false;
    const done = await app.resume('patch', { patch: { n: 2, note: 'fixed' } });
    expect(done.state).toEqual({ n: 3, log: ['n=3'], note: 'fixed' });
  });

  it('a patch on a finished run writes one more finished checkpoint with the patched state', async () => {
    const { app, calls } = counter();
    const first = await app.invoke({ n: 0, log: [] }, { thread: 'amend' });
    const ran = calls.count;
    const amended = await app.resume('amend', { patch: { note: 'reviewed' } });
    expect(amended).toEqual({ ...first, step: first.step + 1, state: { ...first.state, note: 'reviewed' } });
    expect(calls.count).toBe(ran);
  });

  it('concurrent recoveries of a failed run: one runs, the others get ThreadBusy (its lease) or AlreadyResumed (the claim)', async () => {
    let broken = true;
    const { app } = counter({ fail: () => broken });
    await expect(app.invoke({ n: 0, log: [] }, { thread: 'recover' })).rejects.toBeInstanceOf(NodeError);
    broken = false;
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => app.resume('recover')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
      expect(['ALREADY_RESUMED', 'THREAD_BUSY']).toContain(r.reason.code);
      expect(r.reason).toMatchObject({ thread: 'recover' });
    }
    const steps = (await app.history('recover')).map((c) => c.step);
    expect(steps).toEqual([...new Set(steps)]);
  });

  it('a run that loses a step to another resumer rejects with AlreadyResumed (no step written twice)', async () => {
    let hold: Promise<void> | undefined;
    let release!: () => void;
    const app = new StateGraph<{ n: number }>()
      .addNode('slow', async (s) => {
        if (hold) await hold;
        return { n: s.n + 1 };
      })
      .addEdge(START, 'slow')
      .compile({ checkpointer });
    hold = new Promise((r) => {
      release = r;
    });
    const original = app.invoke({ n: 0 }, { thread: 'taken' });
    await expect.poll(() => checkpointer.get('taken')).toBeDefined();
    // The original stalls as a paused process would, and its lease runs out (released here by hand).
    const lease = await checkpointer.getLease('taken');
    await checkpointer.releaseLease('taken', lease?.owner as string);
    hold = undefined;
    expect(await app.resume('taken')).toMatchObject({ status: 'done', step: 2 });
    release();
    await expect(original).rejects.toMatchObject({ code: 'ALREADY_RESUMED', thread: 'taken', step: 1 });
    expect((await app.history('taken')).map((c) => c.step)).toEqual([2, 1, 0]);
  });

  it('a run taken over whose node then throws rejects with AlreadyResumed, and the thread is not failed', async () => {
    let release!: () => void;
    let hold: Promise<void> | undefined = new Promise((r) => {
      release = r;
    });
    const app = new StateGraph<{ n: number }>()
      .addNode('slow', async (s) => {
        if (hold === undefined) return { n: s.n + 1 };
        await hold;
        throw new Error('the paused call failed after the takeover');
      })
      .addEdge(START, 'slow')
      .compile({ checkpointer });
    const original = app.invoke({ n: 0 }, { thread: 'taken-then-failed' });
    await expect.poll(() => checkpointer.get('taken-then-failed')).toBeDefined();
    // The original stalls as a paused process would, and its lease runs out (released here by hand).
    const lease = await checkpointer.getLease('taken-then-failed');
    await checkpointer.releaseLease('taken-then-failed', lease?.owner as string);
    const paused = hold;
    hold = undefined;
    expect(await app.resume('taken-then-failed')).toMatchObject({ status: 'done', step: 2, state: { n: 1 } });
    hold = paused;
    release();
    // Its failure cannot be recorded (step 1 is the taker's): it lost the run, as a loser of a commit does.
    const error = await original.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ALREADY_RESUMED', thread: 'taken-then-failed', step: 1 });
    expect((error as Error).cause).toBeInstanceOf(NodeError);
    const [info] = await checkpointer.listThreads();
    expect(info).toMatchObject({ thread: 'taken-then-failed', done: true, failed: false, error: null });
    expect((await app.history('taken-then-failed')).map((c) => c.step)).toEqual([2, 1, 0]);
  });

  it('invoke on a finished thread applies the input through the reducers and continues the steps', async () => {
    const { app } = counter();
    const first = await app.invoke({ n: 0, log: ['start'] }, { thread: 'again' });
    expect(first).toMatchObject({ step: 3, state: { n: 3 } });
    const second = await app.invoke({ n: 1, log: ['restart'] }, { thread: 'again' });
    expect(second.state).toEqual({ n: 3, log: ['start', 'n=1', 'n=2', 'n=3', 'restart', 'n=2', 'n=3'] });
    expect(second.step).toBe(6);
    expect(await checkpointer.get('again', 4)).toMatchObject({ state: { n: 1 }, next: ['count'] });
  });

  it('invoke on an interrupted or unfinished thread rejects with ThreadBusy', async () => {
    const ask = new StateGraph<S>()
      .addNode('ask', (_s, ctx) => ({ note: String(ctx.interrupt('?')) }))
      .addEdge(START, 'ask')
      .compile({ checkpointer });
    await ask.invoke({ n: 0, log: [] }, { thread: 'busy' });
    const error = await ask.invoke({ n: 0, log: [] }, { thread: 'busy' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadBusy);
    expect(error).toMatchObject({ code: 'THREAD_BUSY', thread: 'busy' });

    const { app } = counter({ fail: () => true });
    await app.invoke({ n: 0, log: [] }, { thread: 'crashed' }).catch(() => undefined);
    await expect(app.invoke({ n: 0, log: [] }, { thread: 'crashed' })).rejects.toMatchObject({
      code: 'THREAD_BUSY',
    });
  });

  it('gives each invoke without a thread id its own new thread', async () => {
    const { app } = counter();
    const a = await app.invoke({ n: 0, log: [] });
    const b = await app.invoke({ n: 0, log: [] });
    expect(a.thread).not.toBe(b.thread);
    expect((await app.getState(a.thread))?.done).toBe(true);
  });

  it('getState and history of an unknown thread are undefined and empty', async () => {
    const { app } = counter();
    expect(await app.getState('ghost')).toBeUndefined();
    expect(await app.history('ghost')).toEqual([]);
  });
});
