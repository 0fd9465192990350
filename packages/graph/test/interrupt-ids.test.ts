import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(allBackends())('interrupt ids on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  /** ask → check: each asks once. */
  function twoQuestions() {
    let runs = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('ask', (_s, ctx) => {
        runs += 1;
        return { log: [`ask:${ctx.interrupt<string>('first?')}`] };
      })
      .addNode('check', (_s, ctx) => ({ log: [`check:${ctx.interrupt<string>('second?')}`] }))
      .addEdge(START, 'ask')
      .addEdge('ask', 'check')
      .compile({ checkpointer });
    return { app, runs: () => runs };
  }

  it('every stop names its question with an id, the same on every read; answering by id works', async () => {
    const { app } = twoQuestions();
    const stop = await app.invoke({ log: [] }, { thread: 'ids' });
    const id = stop.interrupt?.id as string;
    expect(id).toMatch(/^int-[A-Za-z0-9_-]{22}$/);
    expect(stop.interrupts).toEqual([{ id, node: 'ask', payload: 'first?' }]);
    // Another compiled copy of the graph, as another process would build it, sees the same id.
    const done = await twoQuestions().app.resume('ids', { answer: 'A', interrupt: id });
    expect(done.status).toBe('interrupted');
    expect(done.interrupt?.id).not.toBe(id);
    // Same thread shape elsewhere: a different thread gives different ids.
    const other = await app.invoke({ log: [] }, { thread: 'ids-2' });
    expect(other.interrupt?.id).not.toBe(id);
  });

  it('a late answer to an old question is rejected with AlreadyResumed and writes nothing', async () => {
    const { app, runs } = twoQuestions();
    const first = await app.invoke({ log: [] }, { thread: 'late' });
    const second = await app.resume('late', { answer: 'A', interrupt: first.interrupt?.id as string });
    expect(second.interrupt).toMatchObject({ node: 'check', payload: 'second?' });
    const before = await app.history('late');
    const ranBefore = runs();
    // A second click on the first question must not answer the second one.
    const error = await app
      .resume('late', { answer: 'B', interrupt: first.interrupt?.id as string })
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'ALREADY_RESUMED', thread: 'late' });
    expect(error.message).toContain('no longer pending');
    expect(await app.history('late')).toEqual(before);
    expect(runs()).toBe(ranBefore);
    // An unknown id is the same: not pending.
    await expect(app.resume('late', { answer: 'B', interrupt: 'int-nope' })).rejects.toMatchObject({
      code: 'ALREADY_RESUMED',
    });
    const done = await app.resume('late', { answer: 'C', interrupt: second.interrupt?.id as string });
    expect(done).toMatchObject({ status: 'done', state: { log: ['ask:A', 'check:C'] } });
    await expect(
      app.resume('late', { answer: 'D', interrupt: second.interrupt?.id as string }),
    ).rejects.toMatchObject({
      code: 'ALREADY_RESUMED',
    });
  });

  it('an interrupt caught by the node itself still suspends the run, and its update is not applied', async () => {
    let caught = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('sneaky', (_s, ctx) => {
        try {
          return { log: [`got:${ctx.interrupt<string>('ok?')}`] };
        } catch {
          caught += 1;
          return { log: ['swallowed'] };
        }
      })
      .addEdge(START, 'sneaky')
      .compile({ checkpointer });
    const stop = await app.invoke({ log: [] }, { thread: 'swallow' });
    expect(caught).toBe(1);
    expect(stop).toMatchObject({
      status: 'interrupted',
      state: { log: [] },
      interrupt: { node: 'sneaky', payload: 'ok?' },
    });
    expect((await app.getState('swallow'))?.state).toEqual({ log: [] });
    const done = await app.resume('swallow', { answer: 'yes' });
    expect(done.state.log).toEqual(['got:yes']);
  });

  it('an answer to an interruptBefore stop is an InvalidArgumentError and writes nothing', async () => {
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('publish', () => ({ log: ['published'] }))
      .addEdge(START, 'publish')
      .compile({ checkpointer, interruptBefore: ['publish'] });
    const stop = await app.invoke({ log: [] }, { thread: 'before-answer' });
    expect(stop).toMatchObject({ interrupt: { id: null, node: 'publish', payload: null }, interrupts: [] });
    await expect(app.resume('before-answer', { answer: 'go' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect((await app.history('before-answer')).length).toBe(2);
    expect(await app.resume('before-answer')).toMatchObject({
      status: 'done',
      state: { log: ['published'] },
    });
  });

  it('an answer to a thread that is not waiting says where the run stands', async () => {
    const app = new StateGraph<S>()
      .addNode('n', () => ({}))
      .addEdge(START, 'n')
      .compile({ checkpointer });
    await app.enqueue({ log: [] }, { thread: 'state-running' });
    const running = await app.resume('state-running', { answer: 'x' }).catch((e) => e);
    expect(running).toMatchObject({ code: 'ALREADY_RESUMED' });
    expect(running.message).toContain('running');
    expect(running.message).not.toContain('resumed already');
    await app.resume('state-running');
    const done = await app.resume('state-running', { answer: 'x' }).catch((e) => e);
    expect(done.message).toContain('done');
  });
});
