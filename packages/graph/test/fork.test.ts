import type { Checkpointer } from '@flow/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createWorker, START, StateGraph } from '../src/index.js';
import { allBackends } from './support/backends.js';

type S = { log: string[] };
const concat = (a: string[], b: string[]) => [...a, ...b];

describe.each(allBackends())('fork on $name', (backend) => {
  let checkpointer: Checkpointer;
  beforeAll(async () => {
    checkpointer = await backend.create();
  });

  function approval() {
    return new StateGraph<S>({ reducers: { log: concat } })
      .addNode('draft', () => ({ log: ['draft'] }))
      .addNode('ask', (_s, ctx) => ({ log: [`answer:${ctx.interrupt<string>('publish?')}`] }))
      .addEdge(START, 'draft')
      .addEdge('draft', 'ask')
      .compile({ checkpointer });
  }

  it('copies steps 0…step to a new thread; the copy of an interrupted step is answered differently', async () => {
    const app = approval();
    const stop = await app.invoke({ log: [] }, { thread: 'src' });
    expect(stop).toMatchObject({ status: 'interrupted', step: 2 });
    const original = await app.resume('src', { answer: 'yes' });
    expect(original.state.log).toEqual(['draft', 'answer:yes']);

    const copy = await app.fork('src', { step: 2, to: 'what-if' });
    expect(copy).toMatchObject({ thread: 'what-if', step: 2, interrupted: true, interruptNode: 'ask' });
    const source = await app.history('src');
    const forked = await app.history('what-if');
    expect(forked.map((c) => c.step)).toEqual([2, 1, 0]);
    for (const cp of forked) {
      const from = source.find((c) => c.step === cp.step);
      expect(cp).toMatchObject({
        state: from?.state,
        next: from?.next,
        interrupted: from?.interrupted,
        interruptNode: from?.interruptNode,
        interruptPayload: from?.interruptPayload,
        ts: from?.ts,
      });
    }
    const otherwise = await app.resume('what-if', { answer: 'no' });
    expect(otherwise.state.log).toEqual(['draft', 'answer:no']);
    // The source is untouched.
    expect((await app.history('src')).map((c) => c.step)).toEqual(source.map((c) => c.step));
    expect((await app.getState('src'))?.state.log).toEqual(['draft', 'answer:yes']);
  });

  it("keeps the nodes that had completed at the forked step: a sibling's update is not run again", async () => {
    let researched = 0;
    const app = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('research', () => {
        researched++;
        return { log: ['research'] };
      })
      .addNode('ask', (_s, ctx) => ({ log: [`answer:${ctx.interrupt<string>('go?')}`] }))
      .addConditionalEdges(START, () => ['research', 'ask'])
      .compile({ checkpointer });
    const stop = await app.invoke({ log: [] }, { thread: 'fan-src' });
    expect(stop.status).toBe('interrupted');
    expect(researched).toBe(1);

    await app.fork('fan-src', { step: stop.step, to: 'fan-what-if' });
    const forked = await app.resume('fan-what-if', { answer: 'no' });
    expect(forked.status).toBe('done');
    expect([...forked.state.log].sort()).toEqual(['answer:no', 'research']);
    expect(researched).toBe(1);
  });

  it('a fork of a step whose super-step finished runs it again: on the patched state, with new task values', async () => {
    type T = { log: string[]; topic: string };
    let llm = 0;
    const app = new StateGraph<T>({ reducers: { log: concat } })
      .addNode('write', async (s, ctx) => {
        const text = await ctx.task('llm', () => `draft ${++llm} on ${s.topic}`);
        return { log: [text] };
      })
      .addNode('cite', (s) => ({ log: [`cite ${s.topic}`] }))
      .addNode('edit', async (s, ctx) => ({
        log: [await ctx.task('llm', () => `edit ${++llm} on ${s.topic}`)],
      }))
      .addConditionalEdges(START, () => ['write', 'cite'])
      .addEdge('write', 'edit')
      .compile({ checkpointer });
    const done = await app.invoke({ log: [], topic: 'cats' }, { thread: 'done-src' });
    expect(done.state.log).toEqual(['draft 1 on cats', 'cite cats', 'edit 2 on cats']);

    // Step 0's super-step (write + cite, stored as writes) and step 1's (edit, a task value) both finished.
    await app.fork('done-src', { step: 0, to: 'done-fork-0' });
    const again = await app.resume('done-fork-0', { patch: { topic: 'dogs' } });
    expect(again.state.log).toEqual(['draft 3 on dogs', 'cite dogs', 'edit 4 on dogs']);
    await app.fork('done-src', { step: 1, to: 'done-fork-1' });
    const edited = await app.resume('done-fork-1', { patch: { topic: 'owls' } });
    expect(edited.state.log).toEqual(['draft 1 on cats', 'cite cats', 'edit 5 on owls']);
    expect((await app.getState('done-src'))?.state.log).toEqual(done.state.log);
  });

  it('holds the lease on the copy while it copies: a worker sharing the store never takes a half-copied thread', async () => {
    const app = approval();
    await app.invoke({ log: [] }, { thread: 'src-leased' });
    // The copy's step 1 is slow to write: meanwhile the copy's latest step is step 0, a running one.
    const slowCopy = new Proxy(checkpointer, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (typeof value !== 'function') return value;
        if (key === 'put') {
          return async (...args: Parameters<Checkpointer['put']>) => {
            if (args[0].thread === 'copy-leased' && args[0].step === 1)
              await new Promise((r) => setTimeout(r, 300));
            return target.put(...args);
          };
        }
        return value.bind(target);
      },
    });
    const forking = new StateGraph<S>({ reducers: { log: concat } })
      .addNode('draft', () => ({ log: ['draft'] }))
      .addNode('ask', (_s, ctx) => ({ log: [`answer:${ctx.interrupt<string>('publish?')}`] }))
      .addEdge(START, 'draft')
      .addEdge('draft', 'ask')
      .compile({ checkpointer: slowCopy });
    const worker = createWorker(approval(), { pollMs: 10, log: () => {} });
    worker.start();
    try {
      const copying = forking.fork('src-leased', { step: 2, to: 'copy-leased' });
      await expect.poll(() => checkpointer.get('copy-leased')).toBeDefined();
      expect(await checkpointer.getLease('copy-leased')).toMatchObject({ pid: process.pid });
      expect(await copying).toMatchObject({ thread: 'copy-leased', step: 2, interrupted: true });
    } finally {
      await worker.stop();
    }
    const copied = await app.history('copy-leased');
    expect(copied.map((c) => [c.step, c.revision])).toEqual([
      [2, 1],
      [1, 1],
      [0, 1],
    ]);
    expect(await checkpointer.getLease('copy-leased')).toBeUndefined();
  });

  it('defaults to a random UUID; rejects an unknown thread, a missing step and an existing target', async () => {
    const app = approval();
    await app.invoke({ log: [] }, { thread: 'f2' });
    const copy = await app.fork('f2', { step: 1 });
    expect(copy.thread).toMatch(/^[0-9a-f-]{36}$/);
    expect(copy.step).toBe(1);
    await expect(app.fork('nope', { step: 0 })).rejects.toMatchObject({ code: 'THREAD_NOT_FOUND' });
    await expect(app.fork('f2', { step: 7 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(app.fork('f2', { step: 0, to: copy.thread })).rejects.toMatchObject({ code: 'THREAD_BUSY' });
    await expect(app.fork('f2', { step: 0, to: 'f2' })).rejects.toMatchObject({ code: 'THREAD_BUSY' });
    await expect(app.fork('f2', { step: -1 })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(app.fork('f2', undefined as never)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
