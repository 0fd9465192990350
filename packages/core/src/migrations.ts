import type { Awaitable } from './base-checkpointer.js';
import { prefix, StorageError } from './errors.js';
import { runSteps, type Steps, step } from './steps.js';

/**
 * One schema change of a store. Append only: a released migration is never edited, a change is a new version.
 * Versions count up from 1; each applied one is recorded by its version and name.
 */
export interface Migration<C> {
  readonly version: number;
  readonly name: string;
  apply(conn: C): Awaitable<unknown>;
}

/**
 * The name of a store's version table: `migrations`, beside the store's other tables and named the way they
 * are (`flow.migrations` in a Postgres schema, `flow_migrations` for the `flow_` prefix). It holds a row per
 * applied migration: `version` (its primary key), `name`, `applied_at`.
 */
export const VERSION_TABLE = 'migrations';

/** What a dialect supplies to `migrate`: its connection, its lock, and its statements on the version table. */
export interface MigrationDialect<C> {
  /** The backend, as error messages name it (`[flow:NAME]`). */
  readonly backend: string;
  /** The store, as error messages name it: `schema "flow"`, a file's path... */
  readonly store: string;
  /** The package whose upgrade reads a store newer than this release. */
  readonly packageName: string;
  readonly migrations: readonly Migration<C>[];
  /** Takes the one connection the whole setup runs on. */
  connect(): Awaitable<C>;
  /** Hands it back; `failure` is the error setup failed with, if it did. */
  release(conn: C, failure: unknown): Awaitable<unknown>;
  /** The newest version recorded, 0 when the store has no version table yet. Read without the lock. */
  currentVersion(conn: C): Awaitable<number>;
  /** Whether the store exists (for `create: false`): asked only when `currentVersion` found nothing. */
  exists?(conn: C): Awaitable<boolean>;
  /**
   * Runs `work` holding the store's migration lock, which serialises setup across processes: a transaction
   * with an advisory lock, `BEGIN IMMEDIATE`, a named server lock... When the store's DDL is transactional
   * a failure leaves nothing behind; otherwise each migration must be safe to run again.
   */
  locked(conn: C, work: (conn: C) => Awaitable<void>): Awaitable<void>;
  /**
   * Under the lock: creates the version table when missing, or brings one of an older release to the
   * convention's name and shape. Creates only what is missing, so a prepared store needs no CREATE right.
   */
  prepareVersionTable(conn: C): Awaitable<unknown>;
  /** Under the lock: every version recorded. */
  appliedVersions(conn: C): Awaitable<readonly number[]>;
  /** Under the lock: records `migration` as applied. */
  recordVersion(conn: C, migration: Migration<C>): Awaitable<unknown>;
}

/** The newest version `migrations` knows. */
export function latestVersion(migrations: readonly Migration<unknown>[]): number {
  return Math.max(0, ...migrations.map((m) => m.version));
}

function tooNew(dialect: MigrationDialect<never>, found: number): StorageError {
  return new StorageError(
    `${prefix(dialect.backend)}${dialect.store} is at version ${found}, newer than this package knows ` +
      `(${latestVersion(dialect.migrations)}): upgrade ${dialect.packageName}`,
  );
}

function* lockedSteps<C>(dialect: MigrationDialect<C>, conn: C): Steps<void> {
  yield* step(dialect.prepareVersionTable(conn));
  const applied = new Set(yield* step(dialect.appliedVersions(conn)));
  const newest = Math.max(0, ...applied);
  if (newest > latestVersion(dialect.migrations)) throw tooNew(dialect as MigrationDialect<never>, newest);
  const pending = dialect.migrations.filter((m) => !applied.has(m.version));
  for (const migration of [...pending].sort((a, b) => a.version - b.version)) {
    yield* step(migration.apply(conn));
    yield* step(dialect.recordVersion(conn, migration));
  }
}

function* migrateSteps<C>(dialect: MigrationDialect<C>, create: boolean): Steps<void> {
  const conn = yield* step(dialect.connect());
  let failure: unknown;
  try {
    const version = yield* step(dialect.currentVersion(conn));
    const latest = latestVersion(dialect.migrations);
    if (version === latest) return; // the common case: one read, no lock
    if (version > latest) throw tooNew(dialect as MigrationDialect<never>, version);
    if (version === 0 && !create && dialect.exists !== undefined && !(yield* step(dialect.exists(conn)))) {
      throw new StorageError(
        `${prefix(dialect.backend)}no store in ${dialect.store} (opened with create: false)`,
      );
    }
    // The version is read again under the lock: another process may have migrated meanwhile.
    yield* step(dialect.locked(conn, (locked) => runSteps(lockedSteps(dialect, locked))));
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    yield* step(dialect.release(conn, failure));
  }
}

/**
 * Brings a store up to date: applies, in version order and under the dialect's lock, every migration its
 * version table does not record, and records each. A store at the newest version costs one read and takes no
 * lock; a store newer than this release is refused with `StorageError`, changing nothing. With
 * `create: false` a store that does not exist is refused too (one of an older release is still migrated).
 * Synchronous when the dialect is.
 */
export function migrate<C>(dialect: MigrationDialect<C>, opts: { create?: boolean } = {}): Awaitable<void> {
  return runSteps(migrateSteps(dialect, opts.create ?? true));
}
