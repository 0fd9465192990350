import { storedRecord } from '@flow/checkpoint-conformance';
import type { CheckpointRecord, ChunkRecord } from '@flow/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { rawDb, tempDbPath } from './support/databases.js';

/** The backend contract itself, under core's encoder: records with refs and chunks as core would hand them. */
class Raw extends SqliteCheckpointer {
  writeRaw(record: CheckpointRecord, ifRevision?: number): Promise<number> {
    return Promise.resolve(this.writeRecord(record, ifRevision));
  }
  read(thread: string, step?: number) {
    return this.readRecord(thread, step);
  }
  readAll(thread: string) {
    return this.readRecords(thread, {});
  }
}

function record(thread: string, step: number, refs: string[], chunks: ChunkRecord[] = []): CheckpointRecord {
  return storedRecord(thread, step, { refs, chunks });
}

const chunk = (id: string, data = `"${id}"`): ChunkRecord => ({ id, data });

async function open(path = tempDbPath()) {
  const raw = new Raw(path);
  await raw.setup();
  const db = rawDb(path);
  const stored = (thread: string) =>
    db.prepare('SELECT id FROM flow_chunks WHERE thread = ? ORDER BY id').pluck().all(thread);
  return { raw, db, stored };
}

describe('chunks in a group commit', () => {
  it('puts issued together share one transaction; a put that fails in it stores none of its chunks', async () => {
    const { raw, stored } = await open();
    await raw.writeRaw(record('held', 0, ['h0'], [chunk('h0')]));
    const results = await Promise.allSettled([
      raw.writeRaw(record('a', 0, ['a0', 'a1'], [chunk('a0'), chunk('a1')])),
      // A conflict, then a ref neither stored nor brought: both roll back their own savepoint only.
      raw.writeRaw(record('held', 0, ['h0', 'h1'], [chunk('h1')]), 0),
      raw.writeRaw(record('b', 0, ['b0', 'gone'], [chunk('b0')])),
      raw.writeRaw(record('c', 0, ['c0'], [chunk('c0')])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
      name: 'MissingChunkError',
      code: 'STORAGE',
      thread: 'b',
      id: 'gone',
    });
    expect([stored('a'), stored('held'), stored('b'), stored('c')]).toEqual([
      ['a0', 'a1'],
      ['h0'],
      [],
      ['c0'],
    ]);
    expect(await raw.read('b')).toBeUndefined();
    await raw.close();
  });

  it('a later put may reference chunks an earlier put of the same group brings', async () => {
    const { raw, stored } = await open();
    const [first, second] = await Promise.all([
      raw.writeRaw(record('t', 0, ['x'], [chunk('x')])),
      raw.writeRaw(record('t', 1, ['x', 'y'], [chunk('y')])),
    ]);
    expect([first, second]).toEqual([1, 1]);
    expect(stored('t')).toEqual(['x', 'y']);
    await raw.close();
  });

  it('an id already stored keeps its data', async () => {
    const { raw } = await open();
    await raw.writeRaw(record('t', 0, ['x'], [chunk('x', '"first"')]));
    await raw.writeRaw(record('t', 1, ['x'], [chunk('x', '"second"')]));
    expect((await raw.read('t', 1))?.chunks).toEqual([chunk('x', '"first"')]);
    await raw.close();
  });
});

describe('reading chunks', () => {
  it('a record with refs is read again with its chunks in one read transaction', async () => {
    const path = tempDbPath();
    const { raw } = await open(path);
    await raw.writeRaw(record('t', 0, ['x', 'y'], [chunk('x'), chunk('y')]));
    await raw.close();
    const statements: string[] = [];
    const traced = new Database(path, {
      verbose: (sql) => statements.push(String(sql).trim().split(/\s+/)[0]!),
    });
    const reader = new Raw(traced);
    await reader.setup();
    statements.length = 0;
    const read = await reader.read('t');
    expect(read?.refs).toEqual(['x', 'y']);
    expect(new Set(read?.chunks?.map((c) => c.id))).toEqual(new Set(['x', 'y']));
    expect(statements).toEqual(['SELECT', 'BEGIN', 'SELECT', 'SELECT', 'COMMIT']);
    await reader.close();
    traced.close();
  });

  it('a list reads each chunk once, for all its records', async () => {
    const { raw } = await open();
    await raw.writeRaw(record('t', 0, ['x'], [chunk('x')]));
    await raw.writeRaw(record('t', 1, ['x', 'y'], [chunk('y')]));
    await raw.writeRaw({ ...record('t', 2, []), refs: undefined, chunks: undefined });
    const records = raw.readAll('t');
    expect(records.map((r) => r.step)).toEqual([2, 1, 0]);
    expect(records.map((r) => [r.refs, r.chunks?.map((c) => c.id).sort()])).toEqual([
      [undefined, undefined],
      [
        ['x', 'y'],
        ['x', 'y'],
      ],
      [['x'], ['x', 'y']],
    ]);
    await raw.close();
  });
});

describe('collecting chunks', () => {
  it('prune removes the chunks no remaining record references, in its transaction; deleteThread all', async () => {
    const { raw, stored } = await open();
    await raw.writeRaw(record('t', 0, ['a', 'b'], [chunk('a'), chunk('b')]));
    await raw.writeRaw(record('t', 1, ['a', 'c'], [chunk('c')]));
    await raw.writeRaw(record('t', 2, ['c', 'd'], [chunk('d')]));
    await raw.writeRaw(record('other', 0, ['a'], [chunk('a')]));
    expect(await raw.prune('t', { beforeStep: 1 })).toBe(1);
    expect(stored('t')).toEqual(['a', 'c', 'd']);
    expect(await raw.prune('t', { beforeStep: 2 })).toBe(1);
    expect(stored('t')).toEqual(['c', 'd']);
    expect(await raw.prune('t', { beforeStep: 2 })).toBe(0);
    expect(stored('t')).toEqual(['c', 'd']);
    await raw.deleteThread('t');
    expect(stored('t')).toEqual([]);
    expect(stored('other')).toEqual(['a']);
    await raw.close();
  });
});
