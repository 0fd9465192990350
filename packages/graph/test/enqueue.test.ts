import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

describe.each(allBackends())('enqueue on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  it('writes the first checkpoint, runs nothing, and resolves with the thread; resume runs it', async () => {
    let runs = 0;
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => {
        runs += 1;
        return { n: s.n + 1 };
      })
      .addEdge(START, 'inc')
      .compile({ checkpointer });
    expect(await app.enqueue({ n: 1 }, { thread: 'queued' })).toEqual({ thread: 'queued' });
    expect(runs).toBe(0);
    expect(await app.getState('queued')).toMatchObject({
      step: 0,
      next: ['inc'],
      state: { n: 1 },
      done: false,
    });
    await expect(app.enqueue({ n: 1 }, { thread: 'queued' })).rejects.toMatchObject({ code: 'THREAD_BUSY' });
    expect(await app.resume('queued')).toMatchObject({ status: 'done', state: { n: 2 } });
    const { thread } = await app.enqueue({ n: 5 });
    expect(thread).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects options that are not an object, writing nothing', async () => {
    const app = new StateGraph<{ n: number }>()
      .addNode('inc', (s) => ({ n: s.n + 1 }))
      .addEdge(START, 'inc')
      .compile({ checkpointer });
    const before = (await checkpointer.listThreads()).length;
    for (const options of ['order-1', 5, ['order-1']]) {
      await expect(app.enqueue({ n: 1 }, options as never)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('enqueue options must be an object'),
      });
    }
    expect(await checkpointer.listThreads()).toHaveLength(before);
  });

  it('needs a checkpointer', async () => {
    const app = new StateGraph()
      .addNode('n', () => ({}))
      .addEdge(START, 'n')
      .compile();
    await expect(app.enqueue({})).rejects.toMatchObject({ code: 'NO_CHECKPOINTER' });
  });
});
