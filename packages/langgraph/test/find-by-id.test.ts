import type { Checkpointer } from '@flow/core';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

const STEPS = 1000;

/** Counts the reads a checkpointer serves. */
function counting(inner: Checkpointer) {
  const reads = { get: 0, list: 0, getWrites: 0 };
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (prop in reads) reads[prop as keyof typeof reads]++;
        return value.apply(target, args);
      };
    },
  });
  return { store, reads };
}

async function seed(saver: FlowSaver, thread: string): Promise<string[]> {
  const ids: string[] = [];
  let parent: string | undefined;
  for (let i = 0; i < STEPS; i++) {
    const id = uuid6(-1);
    await saver.put(
      { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: parent } },
      {
        v: 4,
        id,
        ts: new Date().toISOString(),
        channel_values: { i },
        channel_versions: { i: i + 1 },
        versions_seen: {},
      },
      { source: 'loop', step: i, parents: {} },
      { i: i + 1 },
    );
    ids.push(id);
    parent = id;
  }
  return ids;
}

describe.each(allBackends().filter((b) => b.name === 'sqlite' || b.name === 'postgres'))(
  'a checkpoint by id on $name',
  (backend) => {
    it(`is found by a new saver in about log2(steps) reads, not a walk of the ${STEPS} steps`, async () => {
      const { store } = await backend.create();
      const ids = await seed(new FlowSaver(store), 'long');
      const { store: counted, reads } = counting(store);
      const cold = new FlowSaver(counted);
      for (const k of [0, 1, 57, 123, 700, STEPS - 2]) {
        const before = { ...reads };
        const tuple = await cold.getTuple({ configurable: { thread_id: 'long', checkpoint_id: ids[k] } });
        expect(tuple?.checkpoint.channel_values).toEqual({ i: k });
        const used = reads.get + reads.list - before.get - before.list;
        // The latest, then a binary search over the steps below it.
        expect(used).toBeLessThanOrEqual(2 + Math.ceil(Math.log2(STEPS)));
      }
      // Once seen, a checkpoint is read by its step: one read and its writes.
      const before = { ...reads };
      await cold.getTuple({ configurable: { thread_id: 'long', checkpoint_id: ids[57] } });
      expect(reads.get + reads.list - before.get - before.list).toBe(1);
      expect(
        await cold.getTuple({ configurable: { thread_id: 'long', checkpoint_id: uuid6(-1) } }),
      ).toBeUndefined();
    }, 60_000);
  },
);

describe.each(allBackends().filter((b) => b.name === 'memory' || b.name === 'redis'))(
  'list with a checkpoint_id on $name',
  (backend) => {
    it('returns that checkpoint alone, filtered like any other, without reading the thread', async () => {
      const { store } = await backend.create();
      const ids = await seed(new FlowSaver(store), 'short');
      const { store: counted, reads } = counting(store);
      const saver = new FlowSaver(counted);
      const listed = async (options: { filter?: Record<string, unknown>; before?: string } = {}) => {
        const out = [];
        for await (const t of saver.list(
          { configurable: { thread_id: 'short', checkpoint_ns: '', checkpoint_id: ids[150] } },
          {
            filter: options.filter,
            before: options.before ? { configurable: { checkpoint_id: options.before } } : undefined,
          },
        ))
          out.push(t.checkpoint.channel_values);
        return out;
      };
      expect(await listed()).toEqual([{ i: 150 }]);
      expect(reads.list).toBeLessThanOrEqual(1 + Math.ceil(Math.log2(STEPS)));
      expect(await listed({ filter: { step: 150 } })).toEqual([{ i: 150 }]);
      expect(await listed({ filter: { step: 3 } })).toEqual([]);
      expect(await listed({ before: ids[150] })).toEqual([]);
      expect(await listed({ before: ids[151] })).toEqual([{ i: 150 }]);
    }, 60_000);
  },
);
