import { flowPrefix, StorageError } from '@flow/core';
import type { SqliteDatabase } from './driver.js';
import type { ConnectionSettings } from './options.js';

/**
 * Applies the connection settings. The busy timeout comes first: switching a file to WAL takes a lock that
 * another process may hold for a moment. WAL is a property of the file; in-memory and temporary databases
 * have no WAL and keep their journal.
 */
export function configure(db: SqliteDatabase, settings: ConnectionSettings): void {
  db.pragma(`busy_timeout = ${settings.busyTimeout}`);
  const mode = switchToWal(db, settings.busyTimeout);
  if (mode !== 'wal' && !db.memory) {
    throw new StorageError(`${flowPrefix('sqlite')}${db.name} cannot use WAL (journal_mode is ${mode})`);
  }
  // Set explicitly: left alone, better-sqlite3's SQLite drops a WAL connection to NORMAL.
  db.pragma(`synchronous = ${settings.synchronous.toUpperCase()}`);
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * `PRAGMA journal_mode = WAL` on a file another process is converting at that moment can answer SQLITE_BUSY
 * at once, without the busy handler. Retry it until `busyTimeout` runs out, as any other lock would wait.
 * The driver is synchronous, so the pause is too; it only happens while processes set up one fresh file.
 */
function switchToWal(db: SqliteDatabase, busyTimeout: number): string {
  const deadline = Date.now() + busyTimeout;
  for (let wait = 1; ; wait = Math.min(wait * 2, 50)) {
    try {
      return String(db.pragma('journal_mode = WAL', { simple: true })).toLowerCase();
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, wait);
    }
  }
}
