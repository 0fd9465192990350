import { closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { SqliteDatabase } from './driver.js';

/**
 * Creates the database file `0o600` when it does not exist yet, so only its owner can read it whatever the
 * umask (SQLite would create it `0o644` minus the umask); SQLite gives the `-wal` and `-shm` files the mode
 * of the database file. An existing file keeps its mode. In-memory (`':memory:'`, `''`) and URI
 * (`file:...`) names are left to SQLite.
 */
export function createPrivateFile(path: string): void {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (error) {
    if ((error as { code?: string }).code !== 'EEXIST') throw error;
  }
}

/** Opens the database file at `path`, creating it `0o600` first when it does not exist (see `createPrivateFile`). */
export function openPrivateFile(path: string): SqliteDatabase {
  createPrivateFile(path);
  return new Database(path) as unknown as SqliteDatabase;
}
