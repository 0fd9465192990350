import {
  type Awaitable,
  type Migration,
  type MigrationDialect,
  migrate as runMigrations,
  type TransactionStatements,
  transactionOn,
  VERSION_TABLE,
} from '@flow/core';
import type { SqliteDatabase } from './driver.js';

/** Migration 4's trigger moving the thread summary to the checkpoint just written (never edit: see below). */
function summaryTrigger(name: string, event: string): string {
  return `CREATE TRIGGER ${name} AFTER ${event} ON flow_checkpoints
  BEGIN
    INSERT INTO flow_threads (thread, latest_step, interrupted, done, ts, error)
    VALUES (NEW.thread, NEW.step, NEW.interrupted, NEW.next = '[]' AND NEW.interrupted = 0, NEW.ts, NEW.error)
    ON CONFLICT (thread) DO UPDATE SET latest_step = excluded.latest_step, interrupted = excluded.interrupted,
      done = excluded.done, ts = excluded.ts, error = excluded.error
    WHERE excluded.latest_step >= flow_threads.latest_step;
  END;`;
}

/**
 * Every schema change, in order; a migration's version is its index + 1. Append, never edit: a database
 * records the versions it has applied in `flow_migrations` (core's version table, under this package's `flow_`
 * prefix). The version lives in a table rather than in `PRAGMA user_version` so an application sharing the
 * file keeps `user_version` for its own migrations.
 */
const STATEMENTS: readonly string[] = [
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
  // 3. Linear state: the chunks a record's state references, stored once per (thread, id), and each record's
  // `refs` (a JSON array of chunk ids; NULL for a whole-state record, as every row before this version is).
  // A rowid table, not WITHOUT ROWID: chunks are kilobytes, far past the size where a clustered key pays.
  `ALTER TABLE flow_checkpoints ADD COLUMN refs TEXT;
  CREATE TABLE flow_chunks (
    thread TEXT NOT NULL COLLATE BINARY,
    id TEXT NOT NULL COLLATE BINARY,
    data TEXT NOT NULL,
    PRIMARY KEY (thread, id)
  );`,
  // 4. The thread summary is kept by triggers, not by a second statement: a put is then one statement, which
  // SQLite runs as its own transaction (no BEGIN/COMMIT round trips). Every write of a checkpoint inserts it or
  // bumps its revision; an edit of other columns (a repair by hand) leaves the summary alone. The summary
  // follows the highest step: a write to an older step changes nothing. `done` is an empty frontier and not
  // interrupted, as core's `statusOf` has it (`next` is stored as `JSON.stringify`, so empty is `'[]'`).
  `${summaryTrigger('flow_threads_insert', 'INSERT')}
  ${summaryTrigger('flow_threads_update', 'UPDATE OF revision')}`,
];

/** The names recorded with the versions (1–3: the same changes as the Postgres package's, by the same names). */
const NAMES = [
  'checkpoints and thread summaries',
  'failed runs, meta, per-step writes and leases',
  'chunks and refs of linear state',
  'thread summary kept by triggers',
];

const MIGRATIONS: readonly Migration<SqliteDatabase>[] = STATEMENTS.map((sql, i) => ({
  version: i + 1,
  name: NAMES[i]!,
  apply: (db) => db.exec(sql),
}));

/** The schema version this package writes and reads. */
export const SCHEMA_VERSION = MIGRATIONS.length;

const VERSIONS = `flow_${VERSION_TABLE}`;

/** SQLite's words for core's transaction lifecycle: `BEGIN IMMEDIATE` takes the database's one write lock. */
const IMMEDIATE: TransactionStatements<SqliteDatabase> = {
  begin: (db) => db.exec('BEGIN IMMEDIATE'),
  commit: (db) => db.exec('COMMIT'),
  rollback: (db) => db.exec('ROLLBACK'),
};

function tableExists(db: SqliteDatabase, name: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

function sqliteDialect(db: SqliteDatabase): MigrationDialect<SqliteDatabase> {
  return {
    backend: 'sqlite',
    store: db.name,
    packageName: '@flow/checkpoint-sqlite',
    migrations: MIGRATIONS,
    connect: () => db,
    release: () => {},
    // Stryker disable next-line ArrowFunction: a fast path; without it setup takes the lock and finds the same versions
    currentVersion: () =>
      tableExists(db, VERSIONS)
        ? (
            db.prepare(`SELECT coalesce(max(version), 0) AS version FROM ${VERSIONS}`).get() as {
              version: number;
            }
          ).version
        : 0,
    locked: (conn, work) => transactionOn(IMMEDIATE, conn, work),
    prepareVersionTable() {
      if (!tableExists(db, VERSIONS)) {
        db.exec(`CREATE TABLE ${VERSIONS} (
          version INTEGER PRIMARY KEY,
          name TEXT NOT NULL,
          applied_at TEXT NOT NULL
        )`);
        return;
      }
      // The first releases recorded no names: their rows keep an empty one.
      const columns = db.prepare(`SELECT name FROM pragma_table_info('${VERSIONS}')`).all() as {
        name: string;
      }[];
      if (!columns.some((c) => c.name === 'name')) {
        db.exec(`ALTER TABLE ${VERSIONS} ADD COLUMN name TEXT NOT NULL DEFAULT ''`);
      }
    },
    appliedVersions: () =>
      (db.prepare(`SELECT version FROM ${VERSIONS}`).all() as { version: number }[]).map((r) => r.version),
    recordVersion: (conn, migration) =>
      conn
        .prepare(`INSERT INTO ${VERSIONS} (version, name, applied_at) VALUES (?, ?, ?)`)
        .run(migration.version, migration.name, new Date().toISOString()),
  };
}

/**
 * Brings the schema up to date (core's `migrate`). Idempotent, and safe when several processes run it at once:
 * the check is repeated under `BEGIN IMMEDIATE` (SQLite's single write lock), so exactly one process applies
 * each migration. Synchronous, as better-sqlite3 is.
 */
export function migrate(db: SqliteDatabase): Awaitable<void> {
  return runMigrations(sqliteDialect(db));
}
