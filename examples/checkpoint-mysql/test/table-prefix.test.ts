import { Checkpoint, isFlowError } from '@flow/core';
import { createConnection } from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { MysqlCheckpointer } from '../src/index.js';
import { freshPrefix, freshStore, url } from './support/stores.js';

async function columns(table: string): Promise<Record<string, string>> {
  const conn = await createConnection({ uri: url });
  try {
    const [rows] = await conn.execute(
      `SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, COLLATION_NAME AS collation
       FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?`,
      [table],
    );
    return Object.fromEntries(
      (rows as { name: string; type: string; collation: string | null }[]).map((r) => [
        r.name,
        `${r.type} ${r.collation ?? ''}`.trim(),
      ]),
    );
  } finally {
    await conn.end();
  }
}

describe('table prefix', () => {
  it.each([
    ['empty', ''],
    ['upper case', 'Flow_'],
    ['a quote', "x'; DROP TABLE t; --"],
    ['a backquote', 'a`b'],
    ['a dot', 'db.flow_'],
    ['33 characters', 'x'.repeat(33)],
    ['null', null],
    ['a number', 7],
  ])('rejects %s in the constructor, before any connection', (_, tablePrefix) => {
    let caught: unknown;
    try {
      new MysqlCheckpointer('mysql://nobody@127.0.0.1:1/none', { tablePrefix: tablePrefix as string });
    } catch (error) {
      caught = error;
    }
    expect(isFlowError(caught, 'INVALID_ARGUMENT')).toBe(true);
  });

  it('defaults to flow_', () => {
    const cp = new MysqlCheckpointer(url);
    expect(cp.tablePrefix).toBe('flow_');
    return cp.close();
  });

  it('isolates stores with distinct prefixes in one database', async () => {
    const a = freshStore();
    const b = freshStore();
    await a.put(new Checkpoint({ thread: 't', step: 0, state: 'a' }));
    await b.put(new Checkpoint({ thread: 't', step: 3, state: 'b' }));
    expect((await a.get('t'))?.state).toBe('a');
    expect((await b.get('t'))?.state).toBe('b');
    expect(await a.deleteThread('t')).toBe(1);
    expect((await b.listThreads()).map((t) => t.latestStep)).toEqual([3]);
  });

  it('creates the tables with a binary NO PAD collation for thread ids and LONGTEXT values', async () => {
    const prefix = freshPrefix();
    const cp = freshStore({ tablePrefix: prefix });
    await cp.setup();
    const checkpoints = await columns(`${prefix}checkpoints`);
    expect(checkpoints.thread).toMatch(/^varchar\(512\) utf8mb4_(nopad_bin|0900_bin)$/);
    expect(checkpoints.state).toBe('longtext utf8mb4_bin');
    expect(checkpoints.ts_ms).toBe('bigint(20)');
    expect(checkpoints.error).toBe('longtext utf8mb4_bin');
    expect(checkpoints.meta).toBe('longtext utf8mb4_bin');
    const threads = await columns(`${prefix}threads`);
    expect(Object.keys(threads).sort()).toEqual([
      'done',
      'error',
      'interrupted',
      'latest_step',
      'thread',
      'ts_ms',
    ]);
    const writes = await columns(`${prefix}writes`);
    expect(writes.write_hash).toBe('binary(32)');
    expect(writes.node).toBe(checkpoints.thread);
    expect(writes.key).toBe(checkpoints.thread);
    const leases = await columns(`${prefix}leases`);
    expect(leases.owner).toBe(checkpoints.thread);
    expect(leases.expires_at).toBe('datetime(3)');
  });
});
