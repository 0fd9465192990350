import { Checkpoint } from '@flow/core';
import { createConnection } from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { MysqlCheckpointer, type MysqlQueryable } from '../src/index.js';
import { threadCollation } from '../src/schema.js';
import { firstReleaseStore } from './support/first-release.js';
import { freshPrefix, freshStore, url } from './support/stores.js';

const ts = new Date(0).toISOString();

/** The rows of the store's version table: [version, name]. */
async function versionsOf(prefix: string): Promise<[number, string][]> {
  const conn = await createConnection({ uri: url });
  try {
    const [rows] = await conn.query(`SELECT version, name FROM \`${prefix}migrations\` ORDER BY version`);
    return (rows as { version: number; name: string }[]).map((r) => [r.version, r.name]);
  } finally {
    await conn.end();
  }
}

describe('a store of the first release (no error, meta, writes or leases)', () => {
  it('gains them at setup, by any number of instances at once; its rows read as not failed, meta {}', async () => {
    const prefix = freshPrefix();
    await firstReleaseStore(url, prefix);
    const instances = [1, 2, 3, 4].map(() => freshStore({ tablePrefix: prefix }));
    await Promise.all(instances.map((cp) => cp.setup()));
    const cp = instances[0]!;

    expect(await cp.listThreads()).toEqual([
      { thread: 'end', latestStep: 0, interrupted: false, done: true, failed: false, error: null, ts },
      { thread: 'run', latestStep: 0, interrupted: false, done: false, failed: false, error: null, ts },
    ]);
    const run = await cp.get('run');
    expect([run?.state, run?.error, run?.meta]).toEqual([{ n: 0 }, null, {}]);

    const error = { node: 'a', message: 'boom \u0000' };
    await cp.put(new Checkpoint({ thread: 'run', step: 1, state: {}, next: ['a'], error, meta: { v: 2 } }));
    expect((await cp.listThreads({ status: 'failed' })).map((t) => t.error)).toEqual([error]);
    await cp.putWrites('run', 1, [{ node: 'a', key: 'k', value: 1 }]);
    expect(await cp.getWrites('run', 1)).toEqual([{ node: 'a', key: 'k', value: 1 }]);
    expect(await cp.acquireLease('run', { owner: 'w', ttlMs: 10_000 })).toMatchObject({ owner: 'w' });
    // Recorded once each in core's version table, though four instances ran setup at once.
    expect(await versionsOf(prefix)).toEqual([
      [1, 'checkpoints and thread summaries'],
      [2, 'failed runs, meta, per-step writes and leases'],
      [3, 'chunks and refs of linear state'],
    ]);
  });

  it('a store already migrated is left as it is', async () => {
    const prefix = freshPrefix();
    await freshStore({ tablePrefix: prefix }).setup();
    const again = new MysqlCheckpointer(url, { tablePrefix: prefix });
    await again.setup();
    await again.close();
    expect((await versionsOf(prefix)).map(([version]) => version)).toEqual([1, 2, 3]);
  });

  it('a store a newer release migrated is refused with StorageError, and nothing is changed', async () => {
    const prefix = freshPrefix();
    const first = freshStore({ tablePrefix: prefix });
    await first.put(new Checkpoint({ thread: 't', step: 0, state: { n: 1 } }));
    const conn = await createConnection({ uri: url });
    await conn.query(`INSERT INTO \`${prefix}migrations\` (version, name) VALUES (4, 'future')`);
    await conn.end();
    const later = new MysqlCheckpointer(url, { tablePrefix: prefix });
    await expect(later.setup()).rejects.toMatchObject({
      code: 'STORAGE',
      message: expect.stringMatching(/^\[flow:mysql\] tables .* is at version 4, newer than this package/),
    });
    await later.close();
    expect((await first.get('t'))?.state).toEqual({ n: 1 });
    expect((await versionsOf(prefix)).map(([version]) => version)).toEqual([1, 2, 3, 4]);
  });
});

const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'ai' : 'user', text: `message ${i} `.repeat(20) }));

/**
 * The tables as version 2 left them (before chunks), with three steps of "long", whose state holds 20, 21 and
 * 22 messages of about 230 characters, each row the whole state.
 */
async function secondReleaseStore(prefix: string): Promise<void> {
  const conn = await createConnection({ uri: url });
  try {
    const collation = await threadCollation(conn as unknown as MysqlQueryable);
    const id = `VARCHAR(512) CHARACTER SET utf8mb4 COLLATE ${collation} NOT NULL`;
    const text = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL';
    const json = 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL';
    await conn.query(`CREATE TABLE \`${prefix}checkpoints\` (
      thread ${id}, step INT UNSIGNED NOT NULL, revision BIGINT UNSIGNED NOT NULL, ts_ms BIGINT NOT NULL,
      next ${text}, interrupted BOOLEAN NOT NULL,
      interrupt_node TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      interrupt_payload ${text}, state ${text}, error ${json}, meta ${json},
      PRIMARY KEY (thread, step)) ENGINE = InnoDB`);
    await conn.query(`CREATE TABLE \`${prefix}threads\` (
      thread ${id}, latest_step INT UNSIGNED NOT NULL, interrupted BOOLEAN NOT NULL, done BOOLEAN NOT NULL,
      ts_ms BIGINT NOT NULL, error ${json}, PRIMARY KEY (thread), KEY interrupted_threads (interrupted, thread)
      ) ENGINE = InnoDB`);
    await conn.query(`CREATE TABLE \`${prefix}writes\` (thread ${id}, step INT UNSIGNED NOT NULL,
      write_hash BINARY(32) NOT NULL, node ${id}, \`key\` ${id}, value ${text},
      PRIMARY KEY (thread, step, write_hash)) ENGINE = InnoDB`);
    await conn.query(`CREATE TABLE \`${prefix}leases\` (thread ${id}, owner ${id},
      host TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL, pid INT NOT NULL,
      expires_at DATETIME(3) NOT NULL, PRIMARY KEY (thread)) ENGINE = InnoDB`);
    await conn.query(`CREATE TABLE \`${prefix}migrations\` (version INT UNSIGNED NOT NULL PRIMARY KEY,
      name VARCHAR(255) CHARACTER SET utf8mb4 NOT NULL,
      applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)) ENGINE = InnoDB`);
    await conn.query(`INSERT INTO \`${prefix}migrations\` (version, name) VALUES
      (1, 'checkpoints and thread summaries'), (2, 'failed runs, meta, per-step writes and leases')`);
    for (let step = 0; step < 3; step++) {
      await conn.execute(
        `INSERT INTO \`${prefix}checkpoints\` VALUES ('long', ?, 1, 0, '["chat"]', FALSE, NULL, 'null', ?, NULL, '{}')`,
        [step, JSON.stringify({ messages: messages(20 + step), step })],
      );
    }
    await conn.query(`INSERT INTO \`${prefix}threads\` VALUES ('long', 2, FALSE, FALSE, 0, NULL)`);
  } finally {
    await conn.end();
  }
}

describe('a store of version 2 (before chunks)', () => {
  it('gains the chunks table and refs; its whole-state rows read, mixed with later puts, before and after prune', async () => {
    const prefix = freshPrefix();
    await secondReleaseStore(prefix);
    const cp = freshStore({ tablePrefix: prefix });
    for (let step = 0; step < 3; step++) {
      expect((await cp.get('long', step))?.state).toEqual({ messages: messages(20 + step), step });
    }
    for (let step = 3; step < 6; step++) {
      await cp.put(
        new Checkpoint({
          thread: 'long',
          step,
          state: { messages: messages(20 + step), step },
          next: ['chat'],
        }),
      );
    }
    const listed = await cp.list('long');
    expect(listed.map((c) => c.step)).toEqual([5, 4, 3, 2, 1, 0]);
    for (const c of listed) expect(c.state).toEqual({ messages: messages(20 + c.step), step: c.step });
    expect(await cp.prune('long', { beforeStep: 4 })).toBe(4);
    for (const step of [4, 5]) {
      expect((await cp.get('long', step))?.state).toEqual({ messages: messages(20 + step), step });
    }
    expect((await versionsOf(prefix)).map(([version]) => version)).toEqual([1, 2, 3]);
  });
});
