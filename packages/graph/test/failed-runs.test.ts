import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorker, END, START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

describe.each(allBackends())('failed runs on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('a NodeError is recorded durably as failed; listThreads finds it; a successful resume clears it', async () => {
    let down = true;
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addNode('call', () => {
        if (down) throw new Error('upstream 503');
        return {};
      })
      .addEdge(START, 'inc')
      .addEdge('inc', 'call')
      .addEdge('call', END)
      .compile({ checkpointer });
    await expect(app.invoke({ n: 0 }, { thread: 'fails' })).rejects.toMatchObject({
      code: 'NODE_FAILED',
      step: 1,
    });
    // Step 2 records the failure: the state from before the super-step, the frontier to re-run.
    expect(await app.getState('fails')).toMatchObject({
      step: 2,
      state: { n: 1 },
      next: ['call'],
      interrupted: false,
      error: { node: 'call', message: 'upstream 503' },
    });
    const failed = await checkpointer.listThreads({ status: 'failed' });
    expect(failed.map((t) => t.thread)).toContain('fails');
    expect(failed.find((t) => t.thread === 'fails')).toMatchObject({ failed: true, error: { node: 'call' } });
    expect((await checkpointer.listThreads({ status: 'running' })).map((t) => t.thread)).not.toContain(
      'fails',
    );
    // An answer is refused with the run's real state.
    const answered = await app.resume('fails', { answer: 'x' }).catch((e) => e);
    expect(answered).toMatchObject({ code: 'ALREADY_RESUMED' });
    expect(answered.message).toContain('failed');
    expect(answered.message).toContain('upstream 503');
    down = false;
    expect(await app.resume('fails')).toMatchObject({ status: 'done', state: { n: 1 } });
    expect((await checkpointer.listThreads({ status: 'failed' })).map((t) => t.thread)).not.toContain(
      'fails',
    );
    const history = await app.history('fails');
    // 0 input, 1 inc, 2 failed, 3 claim (error cleared), 4 call.
    expect(history.map((c) => [c.step, c.error?.node ?? null])).toEqual([
      [4, null],
      [3, null],
      [2, 'call'],
      [1, null],
      [0, null],
    ]);
  });

  it('an update the serializer refuses is recorded as failed, so no worker runs its node again', async () => {
    let calls = 0;
    let broken = true;
    const app = new StateGraph<{ n: number; f?: unknown }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addNode('bad', () => {
        calls += 1;
        return broken ? { f: () => 1 } : { f: 'fixed' };
      })
      .addEdge(START, 'inc')
      .addEdge('inc', 'bad')
      .addEdge('bad', END)
      .compile({ checkpointer });
    await expect(app.invoke({ n: 0 }, { thread: 'unstorable' })).rejects.toMatchObject({
      code: 'SERIALIZATION',
    });
    // Step 2 records the failure: the state from before the super-step, the frontier to re-run.
    expect(await app.getState('unstorable')).toMatchObject({
      step: 2,
      state: { n: 1 },
      next: ['bad'],
      error: { node: 'bad', message: expect.stringMatching(/cannot serialize a function at state\.f/) },
    });
    const info = (await checkpointer.listThreads({ status: 'failed' })).find(
      (t) => t.thread === 'unstorable',
    );
    expect(info).toMatchObject({ failed: true, error: { node: 'bad' } });
    expect(calls).toBe(1);
    broken = false;
    expect(await app.resume('unstorable')).toMatchObject({ status: 'done', state: { n: 1, f: 'fixed' } });
    expect(calls).toBe(2);
  });

  it('StepLimitExceeded is recorded as failed with no node, and the run stays resumable', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'inc')
      .addConditionalEdges('inc', (s) => (s.n < 5 ? 'inc' : END))
      .compile({ checkpointer, maxSteps: 3 });
    const error = await app.invoke({ n: 0 }, { thread: 'limit' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'STEP_LIMIT', step: 4, maxSteps: 3 });
    expect(await app.getState('limit')).toMatchObject({
      step: 4,
      state: { n: 3 },
      next: ['inc'],
      error: { node: null, message: error.message },
    });
    // The recorded error is the one the call rejected with, word for word (its step included).
    const info = (await checkpointer.listThreads({ status: 'failed' })).find((t) => t.thread === 'limit');
    expect(info?.error).toEqual({ node: null, message: error.message });
    expect(await app.resume('limit')).toMatchObject({ status: 'done', state: { n: 5 } });
  });
  it('a router that returns a name outside its targets fails the run: recorded, the node kept, no worker retakes it', async () => {
    let calls = 0;
    let route = 'nowhere';
    const app = new StateGraph<{ n: number }>()
      .addNode('pay', (s) => {
        calls += 1;
        return { n: s.n + 1 };
      })
      .addNode('ship', () => ({}))
      .addEdge(START, 'pay')
      .addConditionalEdges('pay', () => route, ['ship'])
      .compile({ checkpointer });
    const error = await app.invoke({ n: 0 }, { thread: 'misrouted' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'INVALID_GRAPH' });
    const info = (await checkpointer.listThreads({ status: 'failed' })).find((t) => t.thread === 'misrouted');
    expect(info).toMatchObject({ failed: true, error: { node: 'pay', message: error.message } });
    // A worker leaves the failed run alone: the node (a payment) does not run again.
    const lines: string[] = [];
    const worker = createWorker(app, { pollMs: 10, log: (line) => lines.push(line) });
    worker.start();
    await new Promise((r) => setTimeout(r, 150));
    await worker.stop();
    expect(calls).toBe(1);
    // After the fix, resume goes on with the node's kept update, without running it again.
    route = 'ship';
    expect(await app.resume('misrouted')).toMatchObject({ status: 'done', state: { n: 1 } });
    expect(calls).toBe(1);
  });
});
