import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach } from 'vitest';
import type { SqliteDatabase } from '../../src/driver.js';

const dirs: string[] = [];
const open: { close(): unknown }[] = [];

afterEach(async () => {
  for (const item of open.splice(0)) await item.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A path to a database file in a fresh temp directory, removed after the test. */
export function tempDbPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flow-sqlite-'));
  dirs.push(dir);
  return join(dir, 'flow.db');
}

/** Removes the temp directory holding `path` (the db file and its -wal/-shm companions). */
export function removeDbFiles(path: string): void {
  rmSync(dirname(path), { recursive: true, force: true });
}

/** A raw better-sqlite3 connection, closed after the test. */
export function rawDb(path: string): Database.Database {
  const db = new Database(path);
  open.push(db);
  return db;
}

/** Wraps a connection so tests can see every statement the checkpointer prepares. */
export function recordingDb(db: Database.Database): SqliteDatabase & { prepared: string[] } {
  const prepared: string[] = [];
  return {
    prepared,
    get name() {
      return db.name;
    },
    get memory() {
      return db.memory;
    },
    get open() {
      return db.open;
    },
    get inTransaction() {
      return db.inTransaction;
    },
    prepare(source) {
      prepared.push(source);
      return db.prepare(source);
    },
    exec: (source) => db.exec(source),
    pragma: (source, options) => db.pragma(source, options),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}
