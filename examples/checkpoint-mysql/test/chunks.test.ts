import { storedRecord, withOpenStorage } from '@flow/checkpoint-conformance';
import type { CheckpointRecord, ChunkRecord } from '@flow/core';
import { createConnection, createPool } from 'mysql2/promise';
import { afterEach, describe, expect, it } from 'vitest';
import { MysqlCheckpointer, type MysqlCheckpointerOptions, type MysqlPool } from '../src/index.js';
import { freshPrefix, url } from './support/stores.js';

/** The backend contract itself: records with refs and chunks as core's encoder hands them. */
const Raw = withOpenStorage(MysqlCheckpointer);
type Raw = InstanceType<typeof Raw>;

const opened: Raw[] = [];
function raw(options: MysqlCheckpointerOptions = { tablePrefix: freshPrefix() }, pool?: MysqlPool): Raw {
  const store = new Raw(pool ?? url, options);
  opened.push(store);
  return store;
}

/** A pool whose every connection runs at READ COMMITTED. */
function readCommittedPool(): MysqlPool {
  const pool = createPool({ uri: url, charset: 'utf8mb4' });
  pool.pool.on('connection', (conn) => conn.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'));
  return pool as unknown as MysqlPool;
}

function record(thread: string, step: number, refs?: string[], chunks: ChunkRecord[] = []): CheckpointRecord {
  return storedRecord(thread, step, refs === undefined ? {} : { refs, chunks });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const chunk = (id: string, data = `"${id}"`): ChunkRecord => ({ id, data });
const ids = (chunks: readonly ChunkRecord[] | undefined) => chunks?.map((c) => c.id).sort();

/** The chunk ids stored for `thread`. */
async function stored(store: Raw, thread: string): Promise<string[]> {
  const conn = await createConnection({ uri: url });
  try {
    const [rows] = await conn.execute(
      `SELECT id FROM \`${store.tablePrefix}chunks\` WHERE thread = ? ORDER BY id`,
      [thread],
    );
    return (rows as { id: string }[]).map((r) => r.id);
  } finally {
    await conn.end();
  }
}

describe('chunks', () => {
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it('are stored with their put and read with it, each once for a list; an id stored keeps its data', async () => {
    const store = raw();
    await store.write(record('t', 0, ['x', 'X'], [chunk('x', '"first"'), chunk('X')]));
    await store.write(record('t', 1, ['x', 'y'], [chunk('x', '"second"'), chunk('y')]));
    await store.write(record('t', 2));
    expect(await stored(store, 't')).toEqual(['X', 'x', 'y']);
    const one = await store.read('t', 1);
    expect([one?.refs, ids(one?.chunks)]).toEqual([
      ['x', 'y'],
      ['x', 'y'],
    ]);
    expect(one?.chunks?.find((c) => c.id === 'x')?.data).toBe('"first"');
    expect(await store.read('t')).toMatchObject({ step: 2 });
    expect((await store.read('t'))?.refs).toBeUndefined();
    const all = await store.readAll('t');
    expect(all.map((r) => [r.step, r.refs, ids(r.chunks)])).toEqual([
      [2, undefined, undefined],
      [1, ['x', 'y'], ['X', 'x', 'y']],
      [0, ['x', 'X'], ['X', 'x', 'y']],
    ]);
  });

  it('a ref neither stored nor brought: MissingChunkError, and nothing of the put is stored', async () => {
    const store = raw();
    await store.write(record('t', 0, ['x'], [chunk('x')]));
    await expect(store.write(record('t', 1, ['x', 'gone', 'y'], [chunk('y')]))).rejects.toMatchObject({
      name: 'MissingChunkError',
      code: 'STORAGE',
      thread: 't',
      id: 'gone',
    });
    expect(await store.read('t', 1)).toBeUndefined();
    expect(await stored(store, 't')).toEqual(['x']);
  });

  it('a conflicting conditional put stores no chunk', async () => {
    const store = raw();
    await store.write(record('t', 0, ['x'], [chunk('x')]));
    await expect(store.write(record('t', 0, ['y'], [chunk('y')]), 0)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    await expect(store.write(record('t', 0, ['z'], [chunk('z')]), 7)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    expect(await stored(store, 't')).toEqual(['x']);
  });

  it('prune removes the chunks no remaining checkpoint references; deleteThread removes them all', async () => {
    const store = raw();
    await store.write(record('t', 0, ['a', 'b'], [chunk('a'), chunk('b')]));
    await store.write(record('t', 1, ['a', 'c'], [chunk('c')]));
    await store.write(record('t', 2, ['c', 'd'], [chunk('d')]));
    await store.write(record('other', 0, ['a'], [chunk('a')]));
    expect(await store.prune('t', { beforeStep: 1 })).toBe(1);
    expect(await stored(store, 't')).toEqual(['a', 'c', 'd']);
    expect(await store.prune('t', { beforeStep: 2 })).toBe(1);
    expect(await stored(store, 't')).toEqual(['c', 'd']);
    await store.deleteThread('t');
    expect(await stored(store, 't')).toEqual([]);
    expect(await stored(store, 'other')).toEqual(['a']);
  });

  it('a put racing a prune from another pool never leaves a ref without its chunk, even in READ COMMITTED', async () => {
    // READ COMMITTED takes no gap locks: only the put's share locks and the prune's order keep this safe.
    const pools = [readCommittedPool(), readCommittedPool()];
    const tablePrefix = freshPrefix();
    const store = raw({ tablePrefix }, pools[0]);
    const other = raw({ tablePrefix }, pools[1]);
    for (let round = 0; round < 72; round++) {
      const thread = `t${round}`;
      // Only step 0 references x; the prune removes it while a put of step 2 references x without bringing it.
      await store.write(record(thread, 0, ['x'], [chunk('x')]));
      await store.write(record(thread, 1, ['y'], [chunk('y')]));
      // The put starts up to 5 ms after the prune, so some rounds land in each of the prune's statements.
      const [put] = await Promise.allSettled([
        sleep(round % 6).then(() => store.write(record(thread, 2, ['x', 'y']))),
        other.prune(thread, { beforeStep: 1 }),
      ]);
      if (put.status === 'rejected') expect(put.reason).toMatchObject({ name: 'MissingChunkError', id: 'x' });
      const left = new Set(await stored(store, thread));
      for (const r of await store.readAll(thread)) for (const id of r.refs ?? []) expect(left).toContain(id);
    }
    await Promise.all([store.close(), other.close()]);
    await Promise.all(pools.map((p) => p.end()));
  }, 60_000); // rounds of racing transactions: 5.2 s at a load of 20 on two cores, past vitest's 5 s default
});
