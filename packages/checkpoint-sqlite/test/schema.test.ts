import { Checkpoint, compareThreadIds, isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { SCHEMA_VERSION } from '../src/schema.js';
import { rawDb, tempDbPath } from './support/databases.js';

describe('schema', () => {
  it('records its version in flow_migrations and leaves PRAGMA user_version to the application', async () => {
    const path = tempDbPath();
    const db = rawDb(path);
    db.pragma('user_version = 42');
    const checkpointer = new SqliteCheckpointer(path);
    await checkpointer.setup();
    await checkpointer.close();
    expect(db.prepare('SELECT version FROM flow_migrations ORDER BY version').all()).toEqual(
      Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })),
    );
    expect(db.pragma('user_version', { simple: true })).toBe(42);
  });

  it('setup() is idempotent, on one instance and across instances', async () => {
    const path = tempDbPath();
    const first = new SqliteCheckpointer(path);
    await first.setup();
    await first.setup();
    await first.put(new Checkpoint({ thread: 't', step: 0, state: 1 }));
    await first.close();
    const second = new SqliteCheckpointer(path);
    await second.setup();
    expect((await second.get('t'))?.state).toBe(1);
    await second.close();
    const db = rawDb(path);
    expect(db.prepare('SELECT count(*) AS n FROM flow_migrations').get()).toEqual({ n: SCHEMA_VERSION });
  });

  it('refuses a database written by a newer schema version', async () => {
    const path = tempDbPath();
    const first = new SqliteCheckpointer(path);
    await first.setup();
    await first.close();
    rawDb(path)
      .prepare('INSERT INTO flow_migrations (version, name, applied_at) VALUES (?, ?, ?)')
      .run(SCHEMA_VERSION + 1, 'future', new Date().toISOString());
    const later = new SqliteCheckpointer(path);
    const error = await later.setup().catch((e: unknown) => e);
    expect(isFlowError(error, 'STORAGE')).toBe(true);
    expect((error as Error).message).toMatch(/newer than this package/);
    await later.close();
  });

  it('stores thread ids as TEXT under BINARY collation: listThreads is in code-point (UTF-8 byte) order', async () => {
    const db = rawDb(tempDbPath());
    const checkpointer = new SqliteCheckpointer(db);
    // ASCII, Latin-1, BMP above the surrogate range (U+E000–U+FFFF), astral (emoji, U+10000+), and
    // prefixes of each other: UTF-16 order and code-point order disagree on U+FFFD vs 😀.
    const ids = [
      'b',
      'a',
      'ab',
      'A',
      'é',
      '\uffff',
      '\ufffd',
      '\ue000',
      '😀',
      '😀a',
      '𝄞',
      'z',
      ' ',
      '~',
      '中文',
      'a/..',
    ];
    for (const thread of ids) await checkpointer.put(new Checkpoint({ thread, step: 0, state: null }));
    const byCodePoint = [...ids].sort(compareThreadIds);
    const byUtf8 = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(byCodePoint).toEqual(byUtf8);
    expect(byCodePoint).not.toEqual([...ids].sort()); // the test would prove nothing if UTF-16 order agreed
    expect((await checkpointer.listThreads()).map((t) => t.thread)).toEqual(byCodePoint);
    expect((await checkpointer.listThreads({ after: '\ufffd', limit: 2 })).map((t) => t.thread)).toEqual(
      byCodePoint.slice(byCodePoint.indexOf('\ufffd') + 1, byCodePoint.indexOf('\ufffd') + 3),
    );
    const columns = db.prepare("SELECT name, type FROM pragma_table_info('flow_threads')").all();
    expect(columns).toContainEqual({ name: 'thread', type: 'TEXT' });
    const typeOf = db.prepare('SELECT DISTINCT typeof(thread) AS t FROM flow_checkpoints').all();
    expect(typeOf).toEqual([{ t: 'text' }]);
    await checkpointer.close();
  });
});
