import { Checkpoint, isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { configure } from '../src/connection.js';
import { SqliteCheckpointer } from '../src/index.js';
import { connectionSettings } from '../src/options.js';
import { rawDb, tempDbPath } from './support/databases.js';

const cp = (thread: string, step = 0) => new Checkpoint({ thread, step, state: { step } });

describe('connection settings', () => {
  it('switches the file to WAL', async () => {
    const path = tempDbPath();
    const checkpointer = new SqliteCheckpointer(path);
    await checkpointer.setup();
    await checkpointer.close();
    // journal_mode=WAL is stored in the file, so a fresh connection sees it.
    expect(rawDb(path).pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('defaults to synchronous=FULL and a 5 s busy timeout', () => {
    const settings = connectionSettings(undefined);
    expect(settings).toEqual({ synchronous: 'full', busyTimeout: 5000 });
    // better-sqlite3 builds SQLite so that a WAL connection drops to NORMAL unless FULL is asked for.
    const path = tempDbPath();
    const plain = rawDb(path);
    plain.pragma('journal_mode = WAL');
    plain.exec('CREATE TABLE t (x)');
    expect(plain.pragma('synchronous', { simple: true })).toBe(1);
    const db = rawDb(path);
    configure(db, settings);
    db.exec('INSERT INTO t VALUES (1)');
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it("relaxes to synchronous=NORMAL with { synchronous: 'normal' } and takes busyTimeout", async () => {
    const db = rawDb(tempDbPath());
    await new SqliteCheckpointer(db, { synchronous: 'normal', busyTimeout: 1234 }).setup();
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(1234);
  });

  it('applies the durable defaults to a passed-in connection too', async () => {
    const db = rawDb(tempDbPath());
    db.pragma('synchronous = OFF');
    db.pragma('busy_timeout = 77');
    await new SqliteCheckpointer(db).setup();
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  });

  it('does not close a Database passed in, and closes one it opened', async () => {
    const db = rawDb(tempDbPath());
    const checkpointer = new SqliteCheckpointer(db);
    await checkpointer.put(cp('t'));
    await checkpointer.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT count(*) AS n FROM flow_checkpoints').get()).toEqual({ n: 1 });

    const own = new SqliteCheckpointer(tempDbPath());
    await own.put(cp('t'));
    await own.close();
    await expect(own.get('t')).rejects.toSatisfy((e) => isFlowError(e, 'STORAGE'));
  });

  it("works on ':memory:', each instance on its own database", async () => {
    const a = new SqliteCheckpointer(':memory:');
    const b = new SqliteCheckpointer(':memory:');
    await a.put(cp('only-in-a'));
    expect((await a.get('only-in-a'))?.state).toEqual({ step: 0 });
    expect(await b.get('only-in-a')).toBeUndefined();
    await a.close();
    await b.close();
  });

  it('rejects bad options and arguments with InvalidArgumentError', () => {
    const invalid = (fn: () => unknown) =>
      expect(fn).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    invalid(() => new SqliteCheckpointer(':memory:', { synchronous: 'off' as 'full' }));
    invalid(() => new SqliteCheckpointer(':memory:', { busyTimeout: -1 }));
    invalid(() => new SqliteCheckpointer(':memory:', { busyTimeout: 1.5 }));
    invalid(() => new SqliteCheckpointer(42 as unknown as string));
  });

  it('reports a path it cannot open as a StorageError from the first call', async () => {
    const checkpointer = new SqliteCheckpointer('/nonexistent-dir/flow.db');
    await expect(checkpointer.setup()).rejects.toSatisfy((e) => isFlowError(e, 'STORAGE'));
    await checkpointer.close();
  });
});
