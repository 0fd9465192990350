import { flowPrefix, StorageError } from '@flow/core';
import type { SqliteDatabase } from './driver.js';

/**
 * Every schema change, in order; a migration's version is its index + 1. Append, never edit: a database
 * records the versions it has applied in `flow_migrations`. The version lives in a table rather than in
 * `PRAGMA user_version` so an application sharing the file keeps `user_version` for its own migrations.
 */
const MIGRATIONS: readonly string[] = [
  // 1. Checkpoints (state last, so reading the small columns never touches its overflow pages), and the
  // thread summary `listThreads` reads, kept in the same transaction as every write.
  // Thread ids are TEXT under BINARY collation: UTF-8 bytes compared with memcmp, i.e. code-point order.
  // `ts_ms` (epoch ms) serves `prune({ olderThan })`: ISO strings of years past 9999 do not sort as text.
  `CREATE TABLE flow_checkpoints (
    thread TEXT NOT NULL COLLATE BINARY,
    step INTEGER NOT NULL,
    revision INTEGER NOT NULL,
    ts TEXT NOT NULL,
    ts_ms INTEGER NOT NULL,
    next TEXT NOT NULL,
    interrupted INTEGER NOT NULL,
    interrupt_node TEXT,
    interrupt_payload TEXT NOT NULL,
    state TEXT NOT NULL,
    PRIMARY KEY (thread, step)
  );
  CREATE TABLE flow_threads (
    thread TEXT NOT NULL PRIMARY KEY COLLATE BINARY,
    latest_step INTEGER NOT NULL,
    interrupted INTEGER NOT NULL,
    done INTEGER NOT NULL,
    ts TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX flow_threads_interrupted ON flow_threads (thread) WHERE interrupted = 1;`,
  // 2. Failed runs and meta on checkpoints and in the summary (rows of version 1 read as no error, meta
  // '{}'); per-step writes, first value winning through the primary key; thread leases (expiry in epoch
  // ms by this process's clock).
  `ALTER TABLE flow_checkpoints ADD COLUMN error TEXT;
  ALTER TABLE flow_checkpoints ADD COLUMN meta TEXT NOT NULL DEFAULT '{}';
  ALTER TABLE flow_threads ADD COLUMN error TEXT;
  CREATE TABLE flow_writes (
    thread TEXT NOT NULL COLLATE BINARY,
    step INTEGER NOT NULL,
    node TEXT NOT NULL COLLATE BINARY,
    key TEXT NOT NULL COLLATE BINARY,
    value TEXT NOT NULL,
    PRIMARY KEY (thread, step, node, key)
  ) WITHOUT ROWID;
  CREATE TABLE flow_leases (
    thread TEXT NOT NULL PRIMARY KEY COLLATE BINARY,
    owner TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
  ) WITHOUT ROWID;`,
];

/** The schema version this package writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

function storedVersion(db: SqliteDatabase): number {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'flow_migrations'");
  if (table.get() === undefined) return 0;
  const row = db.prepare('SELECT coalesce(max(version), 0) AS version FROM flow_migrations').get() as {
    version: number;
  };
  return row.version;
}

function assertNotNewer(version: number, db: SqliteDatabase): void {
  if (version > SCHEMA_VERSION) {
    throw new StorageError(
      `${flowPrefix('sqlite')}${db.name} has schema version ${version}, newer than this package's ${SCHEMA_VERSION}: upgrade @flow/checkpoint-sqlite`,
    );
  }
}

/**
 * Brings the schema up to date. Idempotent, and safe when several processes run it at once: the check is
 * repeated under `BEGIN IMMEDIATE` (SQLite's single write lock), so exactly one process applies each migration.
 */
export function migrate(db: SqliteDatabase): void {
  const seen = storedVersion(db);
  assertNotNewer(seen, db);
  if (seen === SCHEMA_VERSION) return; // the common case: no write lock taken
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS flow_migrations (
      version INTEGER PRIMARY KEY,
      applied_at TEXT NOT NULL
    )`);
    const current = storedVersion(db);
    assertNotNewer(current, db);
    const record = db.prepare('INSERT INTO flow_migrations (version, applied_at) VALUES (?, ?)');
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      db.exec(MIGRATIONS[version - 1]!);
      record.run(version, new Date().toISOString());
    }
  }).immediate();
}
