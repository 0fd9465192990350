/**
 * The part of a better-sqlite3 `Database` this package calls. Typing the driver by this small structural
 * subset keeps better-sqlite3's own types out of our public declarations, lets the backend work across driver
 * versions, and lets tests hand in an instrumented connection.
 */
export interface SqliteDatabase {
  /** The file name (`':memory:'` for an in-memory database). */
  readonly name: string;
  /** `true` for an in-memory or temporary database, which has no WAL. */
  readonly memory: boolean;
  /** `false` once the connection is closed. */
  readonly open: boolean;
  /** Whether a transaction is open on the connection. */
  readonly inTransaction: boolean;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends (...args: any[]) => unknown>(fn: F): SqliteTransaction<F>;
  close(): unknown;
}

/** A prepared statement, as better-sqlite3 returns it. */
export interface SqliteStatement {
  run(...params: unknown[]): { changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /** With `true`, rows come back as arrays of column values instead of objects; returns the statement. */
  raw(toggle?: boolean): SqliteStatement;
  /** With `true`, a row comes back as its first column's value; returns the statement. */
  pluck(toggle?: boolean): SqliteStatement;
}

/**
 * A function wrapped by `Database#transaction`; `immediate` runs it inside `BEGIN IMMEDIATE ... COMMIT`,
 * `deferred` inside a plain `BEGIN` (for reads: one snapshot, no write lock).
 */
export interface SqliteTransaction<F extends (...args: any[]) => unknown> {
  deferred(...args: F extends (...args: infer A) => unknown ? A : never): ReturnType<F>;
  immediate(...args: F extends (...args: infer A) => unknown ? A : never): ReturnType<F>;
}
