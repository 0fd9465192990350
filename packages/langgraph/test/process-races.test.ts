import { createRequire } from 'node:module';
import { ChildPool } from '@flow/checkpoint-conformance';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import { afterAll, describe, expect, it } from 'vitest';
import { FlowSaver } from '../src/index.js';
import { allBackends } from './support/backends.js';

const CHILDREN = 4;
const ROUNDS = 6;
const require = createRequire(import.meta.url);
const task = { module: new URL('./fixtures/race-task.mjs', import.meta.url).href, export: 'putsAndWrites' };
const pool = new ChildPool(CHILDREN);
afterAll(() => pool.close());

const shared = allBackends().filter((b) => b.name !== 'memory');

describe.each(shared)('FlowSaver puts and writes racing from several processes on $name', (backend) => {
  it('lose nothing: every checkpoint, its parent, its value and its writes are stored', async () => {
    const { store, opener } = await backend.create();
    const saver = new FlowSaver(store);
    const thread = 'raced thread';
    const sharedId = uuid6(-1);
    await saver.put(
      { configurable: { thread_id: thread, checkpoint_ns: '' } },
      {
        v: 4,
        id: sharedId,
        ts: new Date().toISOString(),
        channel_values: { who: 'first' },
        channel_versions: { who: 1 },
        versions_seen: {},
      },
      { source: 'input', step: -1, parents: {} },
      { who: 1 },
    );
    const ids = await pool.run<string[]>({ ...opener!, module: require.resolve(opener!.module) }, task, {
      thread,
      rounds: ROUNDS,
      shared: sharedId,
    });

    const tuples = [];
    for await (const t of saver.list({ configurable: { thread_id: thread } })) tuples.push(t);
    expect(tuples).toHaveLength(1 + CHILDREN * ROUNDS);
    const byId = new Map(tuples.map((t) => [t.checkpoint.id, t]));
    ids.forEach((childIds, index) => {
      childIds.forEach((id, r) => {
        const tuple = byId.get(id);
        expect(tuple?.checkpoint.channel_values).toEqual({ who: `${index}:${r}` });
        expect(tuple?.metadata).toMatchObject({ writer: index, step: r });
        expect(tuple?.parentConfig?.configurable?.checkpoint_id).toBe(r === 0 ? sharedId : childIds[r - 1]);
        expect(tuple?.pendingWrites).toEqual([[`task-${index}-${r}`, 'out', `${index}:${r}`]]);
      });
    });
    // The shared checkpoint: one write per child's own task, and one value for the task they all wrote.
    const first = byId.get(sharedId)?.pendingWrites ?? [];
    const own = first.filter(([taskId]) => taskId !== 'task-shared');
    expect(own.map(([taskId, , value]) => [taskId, value]).sort()).toEqual(
      Array.from({ length: CHILDREN }, (_, i) => [`task-of-${i}`, `child ${i}`]).sort(),
    );
    const raced = first.filter(([taskId]) => taskId === 'task-shared');
    expect(raced).toHaveLength(1);
    expect(Array.from({ length: CHILDREN }, (_, i) => `child ${i}`)).toContain(raced[0]?.[2]);
    // Every checkpoint is its own @flow step of the one thread.
    expect((await store.list(thread)).map((c) => c.step).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 1 + CHILDREN * ROUNDS }, (_, i) => i),
    );
  }, 90_000);
});
