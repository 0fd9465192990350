import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { afterAll, describe, expect, it, vi } from 'vitest';
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

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('compile({ asyncContext: true })', () => {
  const checkpointer = new MemoryCheckpointer();
  afterAll(() => checkpointer.close());

  it('before any graph turned it on, interrupt() outside a node explains itself', () => {
    expect(() => interrupt('nowhere')).toThrow(/outside a graph node/);
    expect(created.count).toBe(0);
  });

  it('turns AsyncLocalStorage on up front, so the free interrupt() after an await runs the step once', async () => {
    let runs = 0;
    const app = new StateGraph<{ answer?: string }>()
      .addNode('ask', async () => {
        runs += 1;
        await tick();
        return { answer: interrupt<string>('ok?') };
      })
      .addEdge(START, 'ask')
      .compile({ checkpointer, asyncContext: true });
    expect(created.count).toBe(1);
    expect((await app.invoke({}, { thread: 'opt-in' })).interrupt).toMatchObject({
      node: 'ask',
      payload: 'ok?',
    });
    expect(runs).toBe(1);
    expect((await app.resume('opt-in', { answer: 'yes' })).state).toEqual({ answer: 'yes' });
    expect(runs).toBe(2);
    expect(created.count).toBe(1);
  });
});
