import { storedRecord, withOpenStorage } from '@flow/checkpoint-conformance';
import { type CheckpointRecord, type ChunkRecord, MissingChunkError } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { waitForLockWaiter } from './support/lock-waiter.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

/** The storage operations core calls, opened up: these tests speak the backend contract directly. */
const Backend = withOpenStorage(PostgresCheckpointer);

const schema = uniqueSchema();
const s = quoteIdent(schema);
const cp = new Backend(url, { schema });
const other = new Backend(url, { schema });
const admin = newPool(2);
/** A pool that runs `between` (once) after the first statement of a get answered, before the next is sent. */
const paused = newPool(1);
let between: (() => Promise<unknown>) | undefined;
const pausing = new Backend(
  {
    query: async (config) => {
      const result = await paused.query(config);
      const hook = between;
      between = undefined;
      if (hook !== undefined) await hook();
      return result;
    },
    connect: () => paused.connect(),
    end: async () => {},
  },
  { schema },
);
afterAll(async () => {
  await cp.close();
  await other.close();
  await pausing.close();
  await paused.end();
  await admin.end();
  await dropSchema(url, schema);
});

function record(
  thread: string,
  step: number,
  refs: string[] = [],
  chunks: ChunkRecord[] = [],
): CheckpointRecord {
  return storedRecord(thread, step, {
    state: JSON.stringify({ step, refs }),
    ts: '2026-01-01T00:00:00.000Z',
    ...(refs.length > 0 ? { refs } : {}),
    ...(chunks.length > 0 ? { chunks } : {}),
  });
}

const chunk = (id: string, data = JSON.stringify([id])): ChunkRecord => ({ id, data });

async function storedChunks(thread: string): Promise<string[]> {
  const { rows } = await admin.query<{ id: string }>(
    `SELECT id FROM ${s}.chunks WHERE thread = $1 ORDER BY id`,
    [thread],
  );
  return rows.map((r) => r.id);
}

const byId = (chunks: readonly ChunkRecord[] | undefined) =>
  [...(chunks ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));

describe('chunks on postgres', () => {
  it('stores a put’s chunks with it and reads each record with the chunks its refs name', async () => {
    await cp.setup();
    await cp.write(record('t', 0, ['a', 'b'], [chunk('a'), chunk('b')]));
    await cp.write(record('t', 1, ['a', 'c'], [chunk('c')]));
    await cp.write(record('t', 2));
    const latest = await cp.read('t');
    expect([latest?.step, latest?.refs, latest?.chunks]).toEqual([2, undefined, undefined]);
    const first = await cp.read('t', 0);
    expect([first?.refs, byId(first?.chunks)]).toEqual([
      ['a', 'b'],
      [chunk('a'), chunk('b')],
    ]);
    const listed = await cp.readAll('t');
    expect(listed.map((r) => [r.step, r.refs, byId(r.chunks)])).toEqual([
      [2, undefined, []],
      [1, ['a', 'c'], [chunk('a'), chunk('c')]],
      [0, ['a', 'b'], [chunk('a'), chunk('b')]],
    ]);
    expect((await cp.readAll('t', { beforeStep: 2, limit: 1 })).map((r) => byId(r.chunks))).toEqual([
      [chunk('a'), chunk('c')],
    ]);
  });

  it('reads chunk text back exactly, through get and list alike', async () => {
    // Chunks are text, never parsed by Postgres: quotes, escapes, line breaks and astral characters must
    // come back as they were written, whichever statement read them.
    const tricky = chunk('x', `{"s":"\\" \\\\ \\n \\u0000 \u2028 \u{1F600} é","t":[1.50,"\t"]}`);
    await cp.write(record('text', 0, ['x', 'y'], [tricky, chunk('y', '"\n"')]));
    expect(byId((await cp.read('text'))?.chunks)).toEqual([tricky, chunk('y', '"\n"')]);
    expect(byId((await cp.read('text', 0))?.chunks)).toEqual([tricky, chunk('y', '"\n"')]);
    expect(byId((await cp.readAll('text'))[0]?.chunks)).toEqual([tricky, chunk('y', '"\n"')]);
  });

  it('keeps the data of an id already stored', async () => {
    await cp.write(record('keep', 0, ['a'], [chunk('a', '"first"')]));
    await cp.write(record('keep', 1, ['a'], [chunk('a', '"second"')]));
    expect((await cp.read('keep', 1))?.chunks).toEqual([chunk('a', '"first"')]);
  });

  it('throws MissingChunkError for a ref neither stored nor in the put, and stores nothing', async () => {
    await cp.write(record('gap', 0, ['a'], [chunk('a')]));
    const error = await cp.write(record('gap', 1, ['a', 'zz'], [chunk('b')])).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingChunkError);
    expect(error).toMatchObject({ thread: 'gap', id: 'zz', code: 'STORAGE' });
    expect(await cp.read('gap', 1)).toBeUndefined();
    expect(await storedChunks('gap')).toEqual(['a']);
    // The same put with every chunk included succeeds.
    await cp.write(record('gap', 1, ['a', 'zz'], [chunk('a'), chunk('zz')]));
    expect(byId((await cp.read('gap'))?.chunks)).toEqual([chunk('a'), chunk('zz')]);
  });

  it('a conditional put that conflicts stores no chunk', async () => {
    await cp.write(record('cond', 0, ['a'], [chunk('a')]));
    await expect(cp.write(record('cond', 0, ['b'], [chunk('b')]), 0)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    await expect(cp.write(record('cond', 0, ['b'], [chunk('b')]), 5)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    expect(await storedChunks('cond')).toEqual(['a']);
    expect(await cp.write(record('cond', 0, ['b'], [chunk('b')]), 1)).toBe(2);
    expect(await storedChunks('cond')).toEqual(['a', 'b']);
  });

  it('prune removes the chunks no remaining checkpoint references; deleteThread removes them all', async () => {
    await cp.write(record('p', 0, ['a', 'b'], [chunk('a'), chunk('b')]));
    await cp.write(record('p', 1, ['b', 'c'], [chunk('c')]));
    // Overwritten: chunk d loses its only reference without a prune, and the next prune collects it.
    await cp.write(record('p', 2, ['c', 'd'], [chunk('d')]));
    await cp.write(record('p', 2, ['c', 'e'], [chunk('e')]));
    expect(await storedChunks('p')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await cp.removeBefore('p', { beforeStep: 1 })).toBe(1);
    expect(await storedChunks('p')).toEqual(['b', 'c', 'e']);
    expect(byId((await cp.read('p', 1))?.chunks)).toEqual([chunk('b'), chunk('c')]);
    expect(await cp.remove('p')).toBe(2);
    expect(await storedChunks('p')).toEqual([]);
  });

  it('a put waiting on a prune that removes its chunks throws MissingChunkError instead of a dangling ref', async () => {
    await cp.write(record('race', 0, ['a'], [chunk('a')]));
    // A prune (here by hand) holds the thread's lock while the put starts: the put's statement takes its
    // snapshot, which still sees chunk a, then waits for the lock.
    const pruner = await admin.connect();
    try {
      await pruner.query('BEGIN');
      await pruner.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${schema}.race`]);
      await pruner.query(`DELETE FROM ${s}.chunks WHERE thread = 'race'`);
      const put = other.write(record('race', 1, ['a'])).catch((e: unknown) => e);
      await waitForLockWaiter(admin, schema, 'race');
      await pruner.query('COMMIT');
      expect(await put).toMatchObject({ name: 'MissingChunkError', thread: 'race', id: 'a' });
    } finally {
      pruner.release();
    }
    expect(await cp.read('race', 1)).toBeUndefined();
  });

  it('a get answers as of its chunk read when a deleteThread, prune or put lands after its first read', async () => {
    await pausing.read('warm-up');
    await cp.write(record('gone', 0, ['a'], [chunk('a')]));
    between = () => other.remove('gone');
    expect(await pausing.read('gone')).toBeUndefined();

    await cp.write(record('pruned', 0, ['a'], [chunk('a')]));
    await cp.write(record('pruned', 1, ['b'], [chunk('b')]));
    between = () => other.removeBefore('pruned', { beforeStep: 1 });
    expect(await pausing.read('pruned', 0)).toBeUndefined();
    expect(await storedChunks('pruned')).toEqual(['b']);

    between = () => other.write(record('pruned', 2, ['c'], [chunk('c')]));
    const latest = await pausing.read('pruned');
    expect([latest?.step, latest?.chunks]).toEqual([2, [chunk('c')]]);
  });

  it('a prune waiting on a put sees the checkpoint it wrote and keeps its chunks', async () => {
    await cp.write(record('seen', 0, ['a'], [chunk('a')]));
    await cp.write(record('seen', 1, ['b'], [chunk('b')]));
    // A put (here by hand) of step 2 referencing a holds the lock while the prune of steps 0 and 1 starts.
    const putter = await admin.connect();
    try {
      await putter.query('BEGIN');
      await putter.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`${schema}.seen`]);
      await putter.query(
        `INSERT INTO ${s}.checkpoints (thread, step, revision, state, next, interrupted, interrupt_payload, ts, refs)
         VALUES ('seen', 2, 1, '{}', '{n}', false, 'null', now(), 'a')`,
      );
      const prune = other.removeBefore('seen', { beforeStep: 2 });
      await waitForLockWaiter(admin, schema, 'seen');
      await putter.query('COMMIT');
      expect(await prune).toBe(2);
    } finally {
      putter.release();
    }
    expect(await storedChunks('seen')).toEqual(['a']);
    expect((await cp.read('seen'))?.chunks).toEqual([chunk('a')]);
  });
});
