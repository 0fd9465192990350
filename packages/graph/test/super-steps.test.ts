import type { Checkpointer } from '@flow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { END, InvalidUpdateError, START, StateGraph } from '../src/index.js';
import { backends } from './support/backends.js';

const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(backends)('super-steps on $name', ({ create }) => {
  let checkpointer: Checkpointer;
  beforeEach(async () => {
    checkpointer = await create();
  });
  afterEach(async () => {
    await checkpointer.close();
  });

  it('runs the documented example as written: loop, interrupt, resume with the answer', async () => {
    const app = new StateGraph<{ log: string[]; n: number }>({ reducers: { log: (a, b) => [...a, ...b] } })
      .addNode('work', async (s) => ({ n: s.n + 1, log: [`work ${s.n}`] }))
      .addNode('review', async (s, ctx) => ({ log: [String(ctx.interrupt({ question: 'ok?', n: s.n }))] }))
      .addEdge(START, 'work')
      .addConditionalEdges('work', (s) => (s.n < 3 ? 'work' : 'review'))
      .addEdge('review', END)
      .compile({ checkpointer });

    const run = await app.invoke({ log: [], n: 0 }, { thread: 'order-42' });
    expect(run).toEqual({
      thread: 'order-42',
      status: 'interrupted',
      state: { log: ['work 0', 'work 1', 'work 2'], n: 3 },
      step: 4,
      interrupt: { id: expect.stringMatching(/^int-/), node: 'review', payload: { question: 'ok?', n: 3 } },
      interrupts: [{ id: run.interrupt?.id, node: 'review', payload: { question: 'ok?', n: 3 } }],
    });
    const done = await app.resume('order-42', { answer: 'yes' });
    expect(done).toEqual({
      thread: 'order-42',
      status: 'done',
      state: { log: ['work 0', 'work 1', 'work 2', 'yes'], n: 3 },
      step: 6,
    });
    expect(done.interrupt).toBeUndefined();
    const latest = await app.getState('order-42');
    expect(latest?.step).toBe(6);
    expect(latest?.done).toBe(true);
    const history = await app.history('order-42');
    expect(history.map((c) => c.step)).toEqual([6, 5, 4, 3, 2, 1, 0]);
    expect(history.map((c) => c.next)).toEqual([
      [],
      ['review'],
      ['review'],
      ['review'],
      ['work'],
      ['work'],
      ['work'],
    ]);
  });

  it('writes step 0 (the input and the entry frontier) before any node runs', async () => {
    let seen: unknown;
    const app = new StateGraph<{ n: number }>()
      .addNode('a', async () => {
        seen = await checkpointer.get('t0');
        return { n: 1 };
      })
      .addEdge(START, 'a')
      .compile({ checkpointer });
    await app.invoke({ n: 0 }, { thread: 't0' });
    expect(seen).toMatchObject({ step: 0, state: { n: 0 }, next: ['a'], interrupted: false });
    const last = await app.getState('t0');
    expect(last).toMatchObject({ step: 1, state: { n: 1 }, next: [], interrupted: false, done: true });
  });

  it('commits each step before the next super-step begins, and gives nodes the step they read', async () => {
    const seen: [number, number | undefined][] = [];
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', async (s, ctx) => {
        const latest = await checkpointer.get(ctx.thread);
        seen.push([ctx.step, latest?.step]);
        return { n: s.n + 1 };
      })
      .addEdge(START, 'inc')
      .addConditionalEdges('inc', (s) => (s.n < 3 ? 'inc' : END))
      .compile({ checkpointer });
    const run = await app.invoke({ n: 0 }, { thread: 'steps' });
    expect(seen).toEqual([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
    expect(run).toMatchObject({ status: 'done', step: 3, state: { n: 3 } });
  });

  it('runs the frontier concurrently and applies updates in declaration order', async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = (name: string) => async () => {
      started.push(name);
      if (started.length === 2) release();
      await gate; // both must have started before either finishes
      return { log: [name] };
    };
    const app = new StateGraph<{ log: string[] }>({ reducers: { log: concat } })
      .addNode('left', slow('left'))
      .addNode('right', slow('right'))
      .addNode('join', () => ({ log: ['join'] }))
      .addEdge(START, 'right')
      .addEdge(START, 'left')
      .addEdge('left', 'join')
      .addEdge('right', 'join')
      .compile({ checkpointer });
    const run = await app.invoke({ log: [] }, { thread: 'fan' });
    expect(run.state.log).toEqual(['left', 'right', 'join']);
    expect(run.step).toBe(2);
    const history = await app.history('fan');
    expect(history.map((c) => c.next)).toEqual([[], ['join'], ['left', 'right']]);
  });

  it('runs a node reached by several edges once per super-step', async () => {
    let joins = 0;
    const app = new StateGraph<{ n: number }>()
      .addNode('a', () => undefined)
      .addNode('b', () => undefined)
      .addNode('join', () => {
        joins += 1;
      })
      .addEdge(START, 'a')
      .addEdge(START, 'b')
      .addEdge('a', 'join')
      .addConditionalEdges('b', () => ['join', 'join', END])
      .compile({ checkpointer });
    await app.invoke({ n: 0 }, { thread: 'dedup' });
    expect(joins).toBe(1);
  });

  it('fans out from a router returning an array', async () => {
    const app = new StateGraph<{ log: string[] }>({ reducers: { log: concat } })
      .addNode('split', () => undefined)
      .addNode('x', () => ({ log: ['x'] }))
      .addNode('y', () => ({ log: ['y'] }))
      .addEdge(START, 'split')
      .addConditionalEdges('split', () => ['y', 'x'], ['x', 'y'])
      .compile({ checkpointer });
    const run = await app.invoke({ log: [] }, { thread: 'router-fan' });
    expect(run.state.log).toEqual(['x', 'y']);
  });

  it('awaits async routers, and reports their failures as a NodeError of the node they route from', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('a', (s) => ({ n: s.n + 1 }))
      .addNode('b', (s) => ({ n: s.n * 10 }))
      .addEdge(START, 'a')
      .addConditionalEdges('a', async (s) => {
        await new Promise((r) => setTimeout(r, 1));
        if (s.n > 5) throw new Error('router down');
        return s.n < 3 ? 'a' : 'b';
      })
      .compile({ checkpointer });
    expect(await app.invoke({ n: 0 }, { thread: 'async-router' })).toMatchObject({
      state: { n: 30 },
      step: 4,
    });
    await expect(app.invoke({ n: 9 }, { thread: 'async-router-2' })).rejects.toMatchObject({
      code: 'NODE_FAILED',
      node: 'a',
      step: 0,
    });
  });

  it('rejects two nodes writing one key without a reducer, naming both, and records the run as failed', async () => {
    const app = new StateGraph<{ n: number; log: string[] }>({ reducers: { log: concat } })
      .addNode('a', () => ({ n: 1, log: ['a'] }))
      .addNode('b', () => ({ n: 2, log: ['b'] }))
      .addEdge(START, 'a')
      .addEdge(START, 'b')
      .compile({ checkpointer });
    const error = await app.invoke({ n: 0, log: [] }, { thread: 'clash' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidUpdateError);
    expect(error).toMatchObject({ code: 'INVALID_UPDATE', key: 'n', nodes: ['a', 'b'] });
    expect((error as Error).message).toContain('"a"');
    expect((error as Error).message).toContain('"b"');
    // Nothing of the super-step is applied; the failure has a checkpoint of its own.
    expect(await app.getState('clash')).toMatchObject({
      step: 1,
      state: { n: 0, log: [] },
      error: { node: 'a' },
    });
  });

  it('names every node that wrote the clashing key, not only the first two', async () => {
    const app = new StateGraph<{ n: number; other: number }>()
      .addNode('a', () => ({ n: 1 }))
      .addNode('b', () => ({ other: 1 }))
      .addNode('c', () => ({ n: 2 }))
      .addNode('d', () => undefined)
      .addNode('e', () => ({ n: 3 }))
      .addEdge(START, 'a')
      .addEdge(START, 'b')
      .addEdge(START, 'c')
      .addEdge(START, 'd')
      .addEdge(START, 'e')
      .compile({ checkpointer });
    const error = await app.invoke({ n: 0, other: 0 }, { thread: 'clash3' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'INVALID_UPDATE', key: 'n', nodes: ['a', 'c', 'e'] });
    expect((error as Error).message).toContain('nodes "a", "c" and "e" all wrote "n"');
  });

  it('lets several nodes write a key that has a reducer', async () => {
    const app = new StateGraph<{ total: number }>({ reducers: { total: (a, b) => a + b } })
      .addNode('a', () => ({ total: 1 }))
      .addNode('b', () => ({ total: 10 }))
      .addEdge(START, 'a')
      .addEdge(START, 'b')
      .compile({ checkpointer });
    expect((await app.invoke({ total: 100 }, { thread: 'sum' })).state).toEqual({ total: 111 });
  });

  it('rejects a node that returns something other than an object or nothing', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('bad', () => 42 as never)
      .addEdge(START, 'bad')
      .compile({ checkpointer });
    await expect(app.invoke({ n: 0 }, { thread: 'bad' })).rejects.toMatchObject({
      code: 'INVALID_UPDATE',
      nodes: ['bad'],
    });
  });

  it('fails the run when a router returns a name outside its declared targets', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('a', () => undefined)
      .addNode('b', () => undefined)
      .addNode('c', () => undefined)
      .addEdge(START, 'a')
      .addConditionalEdges('a', () => 'c', ['b'])
      .addEdge('b', 'c')
      .compile({ checkpointer });
    await expect(app.invoke({ n: 0 }, { thread: 'route' })).rejects.toMatchObject({ code: 'INVALID_GRAPH' });
    // Recorded as failed like a node error: the state and frontier from before the super-step.
    expect(await app.getState('route')).toMatchObject({
      step: 1,
      state: { n: 0 },
      next: ['a'],
      error: { node: 'a' },
    });
  });

  it('allows END from a router with declared targets, and ends a branch at a node without edges', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('a', () => ({ n: 1 }))
      .addNode('b', () => undefined)
      .addEdge(START, 'a')
      .addConditionalEdges('a', () => END, ['b'])
      .compile({ checkpointer });
    expect(await app.invoke({ n: 0 }, { thread: 'end' })).toMatchObject({ status: 'done', step: 1 });
    const leaf = new StateGraph<{ n: number }>()
      .addNode('only', () => ({ n: 5 }))
      .addEdge(START, 'only')
      .compile({ checkpointer });
    expect(await leaf.invoke({ n: 0 }, { thread: 'leaf' })).toMatchObject({ status: 'done', step: 1 });
    expect((await leaf.getState('leaf'))?.next).toEqual([]);
  });

  it('keeps the input object and the state a node read unchanged', async () => {
    const input = { n: 0, tags: ['a'] };
    let read: unknown;
    const app = new StateGraph<{ n: number; tags: string[] }>()
      .addNode('a', (s) => {
        read = s;
        return { n: 1 };
      })
      .addEdge(START, 'a')
      .compile({ checkpointer });
    const run = await app.invoke(input, { thread: 'pure' });
    expect(input).toEqual({ n: 0, tags: ['a'] });
    expect(read).toEqual({ n: 0, tags: ['a'] });
    expect(run.state).toEqual({ n: 1, tags: ['a'] });
  });
});
