import { StorageError } from '@flow/core';
import type { SqliteDatabase } from './driver.js';
import type { ConnectionSettings } from './options.js';

/**
 * Applies the connection settings. The busy timeout comes first: switching a file to WAL takes a lock that
 * another process may hold for a moment. WAL is a property of the file; in-memory and temporary databases
 * have no WAL and keep their journal.
 */
export function configure(db: SqliteDatabase, settings: ConnectionSettings): void {
  db.pragma(`busy_timeout = ${settings.busyTimeout}`);
  const mode = String(db.pragma('journal_mode = WAL', { simple: true })).toLowerCase();
  if (mode !== 'wal' && !db.memory) {
    throw new StorageError(`[flow:sqlite] ${db.name} cannot use WAL (journal_mode is ${mode})`);
  }
  // Set explicitly: left alone, better-sqlite3's SQLite drops a WAL connection to NORMAL.
  db.pragma(`synchronous = ${settings.synchronous.toUpperCase()}`);
}
