import type { Checkpointer } from '@flow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AlreadyResumed, END, START, StateGraph } from '../src/index.js';
import { backends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(backends)('human in the loop on $name', ({ create }) => {
  let checkpointer: Checkpointer;
  beforeEach(async () => {
    checkpointer = await create();
  });
  afterEach(async () => {
    await checkpointer.close();
  });

  function approval() {
    const calls = { ask: 0 };
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('draft', () => ({ log: ['draft'] }))
      .addNode('ask', (_s, ctx) => {
        calls.ask += 1;
        const answer = ctx.interrupt<string>({ question: 'publish?' });
        return { log: [`answer:${String(answer)}`] };
      })
      .addEdge(START, 'draft')
      .addEdge('draft', 'ask')
      .addEdge('ask', END)
      .compile({ checkpointer });
    return { app, calls };
  }

  it('ctx.interrupt writes a new checkpoint: same state, interrupted, node, payload, frontier to re-run', async () => {
    const { app } = approval();
    const run = await app.invoke({ log: [] }, { thread: 'hitl' });
    expect(run).toEqual({
      thread: 'hitl',
      status: 'interrupted',
      state: { log: ['draft'] },
      step: 2,
      interrupt: { id: expect.stringMatching(/^int-/), node: 'ask', payload: { question: 'publish?' } },
      interrupts: [{ id: run.interrupt?.id, node: 'ask', payload: { question: 'publish?' } }],
    });
    const [stop, before] = await app.history('hitl');
    expect(stop).toMatchObject({
      step: 2,
      state: { log: ['draft'] },
      next: ['ask'],
      interrupted: true,
      interruptNode: 'ask',
      interruptPayload: { question: 'publish?' },
      done: false,
    });
    expect(before).toMatchObject({ step: 1, state: { log: ['draft'] }, next: ['ask'], interrupted: false });
  });

  it('resume with an answer re-runs the node and the suspended call returns the answer', async () => {
    const { app, calls } = approval();
    await app.invoke({ log: [] }, { thread: 'answer' });
    const done = await app.resume('answer', { answer: 'yes' });
    expect(done).toEqual({
      thread: 'answer',
      status: 'done',
      state: { log: ['draft', 'answer:yes'] },
      step: 4,
    });
    expect(calls.ask).toBe(2);
    const claim = await checkpointer.get('answer', 3);
    expect(claim).toMatchObject({
      state: { log: ['draft'] },
      next: ['ask'],
      interrupted: false,
      interruptNode: null,
      interruptPayload: null,
    });
  });

  it('resume without an answer re-runs the node and interrupt() returns undefined', async () => {
    const { app } = approval();
    await app.invoke({ log: [] }, { thread: 'no-answer' });
    const done = await app.resume('no-answer');
    expect(done.state.log).toEqual(['draft', 'answer:undefined']);
    await app.invoke({ log: [] }, { thread: 'undefined-answer' });
    const again = await app.resume('undefined-answer', { answer: undefined });
    expect(again.state.log).toEqual(['draft', 'answer:undefined']);
  });

  it('discards the sibling updates of an interrupted super-step and re-runs the whole frontier', async () => {
    const runs = { ask: 0, side: 0 };
    const app = new StateGraph<S & { side: number }>({ reducers: { log: concat } })
      .addNode('ask', (_s, ctx) => {
        runs.ask += 1;
        return { log: [`ask:${ctx.interrupt<string>('ok?')}`] };
      })
      .addNode('side', (s) => {
        runs.side += 1;
        return { side: s.side + 1, log: ['side'] };
      })
      .addEdge(START, 'ask')
      .addEdge(START, 'side')
      .compile({ checkpointer });
    const run = await app.invoke({ log: [], side: 0 }, { thread: 'siblings' });
    expect(run.state).toEqual({ log: [], side: 0 });
    expect((await app.getState('siblings'))?.next).toEqual(['ask', 'side']);
    const done = await app.resume('siblings', { answer: 'yes' });
    expect(done.state).toEqual({ log: ['ask:yes', 'side'], side: 1 });
    // The sibling completed before the stop: its stored update is applied, it does not run again.
    expect(runs).toEqual({ ask: 2, side: 1 });
  });

  it('records the first interrupting node in frontier order; answered in turn, the super-step finishes', async () => {
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('one', (_s, ctx) => ({ log: [`one:${ctx.interrupt<string>('first')}`] }))
      .addNode('two', (_s, ctx) => ({ log: [`two:${ctx.interrupt<string>('second')}`] }))
      .addEdge(START, 'two')
      .addEdge(START, 'one')
      .compile({ checkpointer });
    const run = await app.invoke({ log: [] }, { thread: 'both' });
    expect(run.interrupt).toMatchObject({ node: 'one', payload: 'first' });
    const next = await app.resume('both', { answer: 'A' });
    expect(next.interrupt).toMatchObject({ node: 'two', payload: 'second' });
    // `one` keeps its answer: the turn passes to `two`, and its answer finishes the super-step.
    const done = await app.resume('both', { answer: 'B' });
    expect(done).toMatchObject({ status: 'done' });
    expect(done.state.log).toEqual(['one:A', 'two:B']);
  });

  it('a node that interrupts twice: each answer reaches its own call, by position', async () => {
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('twice', (_s, ctx) => {
        const a = ctx.interrupt<string>('q1');
        const b = ctx.interrupt<string>('q2');
        return { log: [a, b] };
      })
      .addEdge(START, 'twice')
      .compile({ checkpointer });
    expect((await app.invoke({ log: [] }, { thread: 'twice' })).interrupt).toMatchObject({
      node: 'twice',
      payload: 'q1',
    });
    const second = await app.resume('twice', { answer: 'A' });
    expect(second.interrupt).toMatchObject({ node: 'twice', payload: 'q2' });
    const third = await app.resume('twice', { answer: 'B' });
    expect(third).toMatchObject({ status: 'done', state: { log: ['A', 'B'] } });
  });

  it('interruptBefore stops before the node runs; on resume it runs and its own first interrupt suspends', async () => {
    let runs = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('draft', () => ({ log: ['draft'] }))
      .addNode('publish', (_s, ctx) => {
        runs += 1;
        return { log: [`publish:${ctx.interrupt<string>('sure?')}`] };
      })
      .addEdge(START, 'draft')
      .addEdge('draft', 'publish')
      .compile({ checkpointer, interruptBefore: ['publish'] });
    const stop = await app.invoke({ log: [] }, { thread: 'before' });
    expect(stop).toEqual({
      thread: 'before',
      status: 'interrupted',
      state: { log: ['draft'] },
      step: 2,
      interrupt: { id: null, node: 'publish', payload: null },
      interrupts: [],
    });
    expect(runs).toBe(0);
    expect(await app.getState('before')).toMatchObject({
      interrupted: true,
      interruptNode: 'publish',
      interruptPayload: null,
      next: ['publish'],
    });
    // An answer needs a question: no interrupt() call is waiting, so it is refused and nothing is written.
    await expect(app.resume('before', { answer: 'ignored' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect((await app.getState('before'))?.step).toBe(2);
    expect(runs).toBe(0);
    const asked = await app.resume('before');
    expect(runs).toBe(1);
    expect(asked.interrupt).toMatchObject({ node: 'publish', payload: 'sure?' });
    const done = await app.resume('before', { answer: 'yes' });
    expect(done.state.log).toEqual(['draft', 'publish:yes']);
  });

  it('interruptBefore stops on the entry frontier and every time the node comes back', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('loop', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'loop')
      .addConditionalEdges('loop', (s) => (s.n < 2 ? 'loop' : END))
      .compile({ checkpointer, interruptBefore: ['loop'] });
    expect(await app.invoke({ n: 0 }, { thread: 'loop' })).toMatchObject({ status: 'interrupted', step: 1 });
    expect(await app.resume('loop')).toMatchObject({ status: 'interrupted', state: { n: 1 } });
    expect(await app.resume('loop')).toMatchObject({ status: 'done', state: { n: 2 } });
  });

  it('after an approved interruptBefore stop, recovering a failed run does not stop again', async () => {
    let fail = true;
    let runs = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('draft', () => ({ log: ['draft'] }))
      .addNode('publish', () => {
        runs += 1;
        if (fail) throw new Error('publisher down');
        return { log: ['published'] };
      })
      .addEdge(START, 'draft')
      .addEdge('draft', 'publish')
      .compile({ checkpointer, interruptBefore: ['publish'] });
    expect(await app.invoke({ log: [] }, { thread: 'approved' })).toMatchObject({
      status: 'interrupted',
      step: 2,
    });
    await expect(app.resume('approved')).rejects.toMatchObject({
      code: 'NODE_FAILED',
      node: 'publish',
      step: 3,
    });
    fail = false;
    // The latest checkpoint is the claim that passed the stop: the recovery runs publish right away.
    expect(await app.resume('approved')).toMatchObject({
      status: 'done',
      state: { log: ['draft', 'published'] },
    });
    expect(runs).toBe(2);
  });

  it('a run stopped by maxSteps right before an interruptBefore node stops there on resume', async () => {
    let runs = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('draft', () => ({ log: ['draft'] }))
      .addNode('publish', () => {
        runs += 1;
        return { log: ['published'] };
      })
      .addEdge(START, 'draft')
      .addEdge('draft', 'publish')
      .compile({ checkpointer, interruptBefore: ['publish'], maxSteps: 1 });
    await expect(app.invoke({ log: [] }, { thread: 'limited' })).resolves.toMatchObject({
      status: 'interrupted',
    });
    const limited = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('a', () => ({ log: ['a'] }))
      .addNode('b', () => ({ log: ['b'] }))
      .addNode('publish', () => {
        runs += 1;
        return { log: ['published'] };
      })
      .addEdge(START, 'a')
      .addEdge('a', 'b')
      .addEdge('b', 'publish')
      .compile({ checkpointer, interruptBefore: ['publish'], maxSteps: 1 });
    await expect(limited.invoke({ log: [] }, { thread: 'limited-2' })).rejects.toMatchObject({
      code: 'STEP_LIMIT',
    });
    expect(await limited.resume('limited-2')).toMatchObject({
      status: 'interrupted',
      interrupt: { node: 'publish', payload: null },
    });
    expect(runs).toBe(0);
  });

  it('answers exactly once: of concurrent resumers with answers, one runs and the others get AlreadyResumed', async () => {
    const { app, calls } = approval();
    await app.invoke({ log: [] }, { thread: 'race' });
    const results = await Promise.allSettled(
      ['a', 'b', 'c', 'd', 'e'].map((answer) => app.resume('race', { answer })),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(4);
    for (const r of lost) {
      expect(r.reason).toBeInstanceOf(AlreadyResumed);
      expect(r.reason).toMatchObject({ code: 'ALREADY_RESUMED', thread: 'race' });
    }
    expect(calls.ask).toBe(2);
    const final = await app.getState('race');
    expect(final?.state.log).toHaveLength(2);
  });

  it('answers exactly once: a later answer to a finished or running thread is rejected', async () => {
    const { app } = approval();
    await app.invoke({ log: [] }, { thread: 'late' });
    await app.resume('late', { answer: 'yes' });
    await expect(app.resume('late', { answer: 'again' })).rejects.toMatchObject({ code: 'ALREADY_RESUMED' });
    const steps = (await app.history('late')).length;
    expect(steps).toBe(5);
  });
});
