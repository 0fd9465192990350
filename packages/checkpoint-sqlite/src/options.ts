import { assertInteger, type BaseCheckpointerOptions, flowPrefix, InvalidArgumentError } from '@flow/core';
import type { SqliteDatabase } from './driver.js';

/** How hard SQLite flushes a commit to disk (`PRAGMA synchronous`). */
export type SqliteSynchronous = 'full' | 'normal';

/** Options of `new SqliteCheckpointer(pathOrDb, options)`. */
export interface SqliteCheckpointerOptions extends BaseCheckpointerOptions {
  /**
   * `'full'`: every put is fsynced before it resolves, so it survives power loss.
   * `'normal'`: faster; a put survives a crash of the process, but the last commits may be lost on power loss.
   * Applied to a connection you pass in as well, so the durability promise does not depend on how you connect.
   * @default 'full'
   */
  synchronous?: SqliteSynchronous;
  /**
   * How long (ms) a write waits for another process's write lock before failing with `StorageError`.
   * better-sqlite3 is synchronous, so the wait blocks this process's event loop.
   * Applied to a connection you pass in as well.
   * @default 5000
   */
  busyTimeout?: number;
}

/** The connection settings the checkpointer applies. */
export interface ConnectionSettings {
  synchronous: SqliteSynchronous;
  busyTimeout: number;
}

const SYNCHRONOUS: readonly string[] = ['full', 'normal'];

/** Checks the options and fills in the defaults. */
export function connectionSettings(options: SqliteCheckpointerOptions | undefined): ConnectionSettings {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new InvalidArgumentError(`${flowPrefix('sqlite')}SqliteCheckpointer options must be an object`);
  }
  const { synchronous, busyTimeout } = options ?? {};
  if (synchronous !== undefined && !SYNCHRONOUS.includes(synchronous)) {
    throw new InvalidArgumentError(
      `${flowPrefix('sqlite')}synchronous must be 'full' or 'normal', got ${JSON.stringify(synchronous)}`,
    );
  }
  if (busyTimeout !== undefined) assertInteger(busyTimeout, 'busyTimeout', 0, 2 ** 31 - 1);
  return {
    synchronous: synchronous ?? 'full',
    busyTimeout: busyTimeout ?? 5000,
  };
}

/** What the constructor's first argument names: a file to open, or an open `Database` that stays the caller's. */
export type Target = { path: string; db?: undefined } | { path?: undefined; db: SqliteDatabase };

/** Checks the constructor's first argument: a file path, or an open better-sqlite3 `Database`. */
export function targetOf(pathOrDb: unknown): Target {
  if (typeof pathOrDb === 'string') return { path: pathOrDb };
  if (
    typeof pathOrDb === 'object' &&
    pathOrDb !== null &&
    typeof (pathOrDb as SqliteDatabase).prepare === 'function'
  ) {
    return { db: pathOrDb as SqliteDatabase };
  }
  throw new InvalidArgumentError(
    `${flowPrefix('sqlite')}SqliteCheckpointer takes a file path or a better-sqlite3 Database`,
  );
}
