import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import type { Checkpointer } from '@flow/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { interrupt, START, StateGraph } from '../src/index.js';

// Count every AsyncLocalStorage this process creates (each test file runs in its own process).
const created = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:async_hooks', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:async_hooks')>();
  class CountingStorage<T> extends original.AsyncLocalStorage<T> {
    constructor() {
      super();
      created.count += 1;
    }
  }
  return { ...original, AsyncLocalStorage: CountingStorage };
});

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];
const tick = () => new Promise((r) => setTimeout(r, 1));

describe('the free interrupt() and AsyncLocalStorage', () => {
  let checkpointer: Checkpointer;
  beforeAll(() => {
    checkpointer = new MemoryCheckpointer();
  });
  afterAll(async () => {
    await checkpointer.close();
  });

  it('a graph whose nodes use only ctx.interrupt never creates AsyncLocalStorage', async () => {
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('a', async () => {
        await tick();
        return { log: ['a'] };
      })
      .addNode('ask', async (_s, ctx) => {
        await tick();
        return { log: [`ask:${ctx.interrupt<string>('ok?')}`] };
      })
      .addEdge(START, 'a')
      .addEdge('a', 'ask')
      .compile({ checkpointer });
    expect((await app.invoke({ log: [] }, { thread: 'ctx-only' })).status).toBe('interrupted');
    expect((await app.resume('ctx-only', { answer: 'yes' })).state.log).toEqual(['a', 'ask:yes']);
    expect(created.count).toBe(0);
  });

  it('the free interrupt() before the first await works without AsyncLocalStorage', async () => {
    let runs = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('ask', async () => {
        runs += 1;
        const answer = interrupt<string>({ q: 'sync part' });
        await tick();
        return { log: [answer] };
      })
      .addEdge(START, 'ask')
      .compile({ checkpointer });
    const stop = await app.invoke({ log: [] }, { thread: 'sync-free' });
    expect(stop.interrupt).toMatchObject({ node: 'ask', payload: { q: 'sync part' } });
    expect((await app.resume('sync-free', { answer: 'fine' })).state.log).toEqual(['fine']);
    expect(runs).toBe(2);
    expect(created.count).toBe(0);
  });

  it('after an await, the first call turns AsyncLocalStorage on once and re-runs that super-step', async () => {
    const runs = { ask: 0, side: 0 };
    async function approve(order: string): Promise<string> {
      await tick();
      return interrupt<string>({ approve: order });
    }
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('side', async () => {
        runs.side += 1;
        await tick();
        return { log: ['side'] };
      })
      .addNode('ask', async () => {
        runs.ask += 1;
        return { log: [await approve('order-42')] };
      })
      .addEdge(START, 'ask')
      .addEdge(START, 'side')
      .compile({ checkpointer });
    const stop = await app.invoke({ log: [] }, { thread: 'nested' });
    expect(stop.interrupt).toMatchObject({ node: 'ask', payload: { approve: 'order-42' } });
    expect(created.count).toBe(1);
    // The one-time re-run of the super-step runs `ask` again; `side` completed, so its stored update is used.
    expect(runs).toEqual({ ask: 2, side: 1 });
    const done = await app.resume('nested', { answer: 'approved' });
    expect(done.state.log).toEqual(['side', 'approved']); // declaration order
    expect(runs).toEqual({ ask: 3, side: 1 });
    expect(created.count).toBe(1);
  });

  it('once on, nested calls attribute the interrupt to the right node and need no re-run', async () => {
    let runs = 0;
    const deep = async (depth: number): Promise<string> => {
      await tick();
      return depth === 0 ? interrupt<string>(`deep in b`) : deep(depth - 1);
    };
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('a', async () => {
        await tick();
        return { log: ['a'] };
      })
      .addNode('b', async () => {
        runs += 1;
        return { log: [await deep(3)] };
      })
      .addEdge(START, 'a')
      .addEdge(START, 'b')
      .compile({ checkpointer });
    const stop = await app.invoke({ log: [] }, { thread: 'deep' });
    expect(stop.interrupt).toMatchObject({ node: 'b', payload: 'deep in b' });
    expect(runs).toBe(1);
    expect(created.count).toBe(1);
  });

  it('outside any node, interrupt() throws a plain error', () => {
    expect(() => interrupt('nowhere')).toThrow(/outside a running graph node/);
  });
});
