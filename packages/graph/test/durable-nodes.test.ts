import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import * as engine from '../src/index.js';
import { START, StateGraph } from '../src/index.js';
import { fanOut, twoQuestions } from './fixtures/durable-graphs.mjs';
import { allBackends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

/** Wraps a checkpointer, counting the calls of each method. */
function counting(inner: Checkpointer): { cp: Checkpointer; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const cp = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls[String(prop)] = (calls[String(prop)] ?? 0) + 1;
        return value.apply(target, args);
      };
    },
  });
  return { cp, calls };
}

describe.each(allBackends())('durable nodes on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('after a node error, only the failed node runs again, and the step commits as if all had run together', async () => {
    const runs: Record<string, number> = {};
    let down = true;
    const slow = (name: string, ms: number) => async () => {
      runs[name] = (runs[name] ?? 0) + 1;
      await new Promise((r) => setTimeout(r, ms));
      if (name === 'b' && down) throw new Error('b is down');
      return { log: [name] };
    };
    const app = new StateGraph<S>({ reducers: { log: concat } })
      // Completion order c, b, a; application order is the frontier's, a, b, c.
      .addNode('a', slow('a', 40))
      .addNode('b', slow('b', 20))
      .addNode('c', slow('c', 1))
      .addEdge(START, 'a')
      .addEdge(START, 'b')
      .addEdge(START, 'c')
      .compile({ checkpointer });
    await expect(app.invoke({ log: [] }, { thread: 'kept' })).rejects.toMatchObject({
      code: 'NODE_FAILED',
      node: 'b',
    });
    const failed = await app.getState('kept');
    // The failure is its own checkpoint: the state from before the super-step, the full frontier.
    expect(failed).toMatchObject({
      step: 1,
      state: { log: [] },
      next: ['a', 'b', 'c'],
      error: { node: 'b', message: 'b is down' },
    });
    down = false;
    const done = await app.resume('kept');
    expect(done.state.log).toEqual(['a', 'b', 'c']);
    expect(runs).toEqual({ a: 1, b: 2, c: 1 });
  });

  it('after an interrupt, the siblings that completed keep their updates and never run again', async () => {
    const runs: Record<string, number> = {};
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('work', () => {
        runs.work = (runs.work ?? 0) + 1;
        return { log: ['work'] };
      })
      .addNode('ask', (_s, ctx) => {
        runs.ask = (runs.ask ?? 0) + 1;
        return { log: [`ask:${ctx.interrupt<string>('ok?')}`] };
      })
      .addEdge(START, 'work')
      .addEdge(START, 'ask')
      .compile({ checkpointer });
    const stop = await app.invoke({ log: [] }, { thread: 'sibling' });
    expect(stop).toMatchObject({ status: 'interrupted', state: { log: [] } });
    expect(await app.getState('sibling')).toMatchObject({ next: ['work', 'ask'], state: { log: [] } });
    const done = await app.resume('sibling', { answer: 'yes' });
    expect(done.state.log).toEqual(['work', 'ask:yes']);
    expect(runs).toEqual({ work: 1, ask: 2 });
  });

  it('two interrupt calls in one node are answered by two resumes, by position', async () => {
    const app = twoQuestions(engine, checkpointer);
    const first = await app.invoke({ log: [] }, { thread: 'two-calls' });
    expect(first.interrupt).toMatchObject({ node: 'ask', payload: 'first?' });
    const second = await app.resume('two-calls', { answer: 'A' });
    expect(second.interrupt).toMatchObject({ node: 'ask', payload: 'second?' });
    expect(second.interrupt?.id).not.toBe(first.interrupt?.id);
    expect(await app.interrupts('two-calls')).toEqual([
      { id: second.interrupt?.id, node: 'ask', payload: 'second?' },
    ]);
    const done = await app.resume('two-calls', { answer: 'B' });
    expect(done).toMatchObject({ status: 'done', state: { log: [`A+B@${process.pid}`] } });
  });

  it('two nodes interrupting in one super-step take turns; answers can come in any order, each once', async () => {
    const runs: Record<string, number> = {};
    const asker = (name: string) => (_s: S, ctx: engine.NodeContext) => {
      runs[name] = (runs[name] ?? 0) + 1;
      return { log: [`${name}:${ctx.interrupt<string>(`${name}?`)}`] };
    };
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('p', asker('p'))
      .addNode('q', asker('q'))
      .addNode('r', () => {
        runs.r = (runs.r ?? 0) + 1;
        return { log: ['r'] };
      })
      .addEdge(START, 'p')
      .addEdge(START, 'q')
      .addEdge(START, 'r')
      .compile({ checkpointer });
    const stop = await app.invoke({ log: [] }, { thread: 'turns' });
    expect(stop.interrupt).toMatchObject({ node: 'p', payload: 'p?' });
    expect(stop.interrupts?.map((i) => [i.node, i.payload])).toEqual([
      ['p', 'p?'],
      ['q', 'q?'],
    ]);
    const [p, q] = stop.interrupts as engine.PendingInterrupt[];
    expect(await app.interrupts('turns')).toEqual(stop.interrupts);
    // Answer q first (named by its id): the run stops again for p, with the same id as before.
    const again = await app.resume('turns', { answer: 'Q', interrupt: q?.id });
    expect(again.interrupt).toEqual({ id: p?.id, node: 'p', payload: 'p?' });
    expect(again.interrupts).toEqual([p]);
    await expect(app.resume('turns', { answer: 'late', interrupt: q?.id })).rejects.toMatchObject({
      code: 'ALREADY_RESUMED',
    });
    const done = await app.resume('turns', { answer: 'P' });
    expect(done.state.log).toEqual(['p:P', 'q:Q', 'r']);
    expect(runs).toEqual({ p: 3, q: 2, r: 1 });
  });

  it('a super-step of one node stores no write of its own; a fan-out stores each completed node', async () => {
    const { cp, calls } = counting(checkpointer);
    const loop = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'inc')
      .addConditionalEdges('inc', (s) => (s.n < 5 ? 'inc' : engine.END))
      .compile({ checkpointer: cp });
    expect(await loop.invoke({ n: 0 }, { thread: 'one-node' })).toMatchObject({ status: 'done', step: 5 });
    expect(calls.putWrites).toBeUndefined();
    expect(calls.put).toBe(6);
    const fan = fanOut(engine, cp);
    await fan.invoke({ log: [] }, { thread: 'fan-writes' });
    expect(calls.putWrites).toBe(3);
    expect((await checkpointer.getWrites('fan-writes', 0)).map((w) => `${w.node}/${w.key}`)).toEqual([
      'x/update',
      'y/update',
      'z/update',
    ]);
  });
});
