import type { Awaitable } from './base-checkpointer.js';
import { runSteps, type Steps, step } from './steps.js';

/** The statements that begin and end a transaction on one connection: each dialect's own words. */
export interface TransactionStatements<C> {
  /** `BEGIN`, `START TRANSACTION`, `BEGIN IMMEDIATE`... */
  begin(conn: C): Awaitable<unknown>;
  commit(conn: C): Awaitable<unknown>;
  rollback(conn: C): Awaitable<unknown>;
}

/** How a transaction ended, for `release`: the error that ended it, and whether ROLLBACK failed too. */
export interface TransactionFailure {
  error: unknown;
  /** ROLLBACK failed as well: the connection's state is unknown, so it must not serve another caller. */
  broken: boolean;
}

/** A dialect's connections and transaction statements, for `inTransaction`. */
export interface TransactionDialect<C> extends TransactionStatements<C> {
  /** Takes a connection (out of a pool). */
  connect(): Awaitable<C>;
  /** Hands the connection back: `failure` is set when the transaction failed (the dialect may drop it then). */
  release(conn: C, failure: TransactionFailure | undefined): Awaitable<unknown>;
  /**
   * Whether a transaction that failed with `error` (and was rolled back) is run again from the start, on a
   * fresh connection: InnoDB's deadlock victim is. At most `attempts` runs in all.
   */
  retryable?(error: unknown): boolean;
  /** @default 1 */
  attempts?: number;
}

/** BEGIN on `conn`, `work`, COMMIT; ROLLBACK when any of them throws, then the error is thrown again. */
function* transactionSteps<C, T>(
  statements: TransactionStatements<C>,
  conn: C,
  work: (conn: C) => Awaitable<T>,
  ended: { failure?: TransactionFailure },
): Steps<T> {
  try {
    yield* step(statements.begin(conn));
    const result = yield* step(work(conn));
    yield* step(statements.commit(conn));
    return result;
  } catch (error) {
    let broken = false;
    try {
      yield* step(statements.rollback(conn));
    } catch {
      broken = true;
    }
    ended.failure = { error, broken };
    throw error;
  }
}

/**
 * Runs `work` in a transaction on a connection the caller holds: COMMIT when it returns, ROLLBACK when it
 * throws. Synchronous when the statements and `work` are (better-sqlite3).
 */
export function transactionOn<C, T>(
  statements: TransactionStatements<C>,
  conn: C,
  work: (conn: C) => Awaitable<T>,
): Awaitable<T> {
  return runSteps(transactionSteps(statements, conn, work, {}));
}

function* attempts<C, T>(dialect: TransactionDialect<C>, work: (conn: C) => Awaitable<T>): Steps<T> {
  for (let attempt = 1; ; attempt++) {
    const conn = yield* step(dialect.connect());
    const ended: { failure?: TransactionFailure } = {};
    try {
      return yield* transactionSteps(dialect, conn, work, ended);
    } catch (error) {
      const again = attempt < (dialect.attempts ?? 1) && dialect.retryable?.(error) === true;
      if (!again) throw error;
    } finally {
      yield* step(dialect.release(conn, ended.failure));
    }
  }
}

/**
 * Runs `work` in a transaction on a connection of its own: taken, BEGIN, `work`, COMMIT, handed back; on a
 * failure ROLLBACK, the connection handed back marked failed, and the error thrown again — or, when the
 * dialect calls the error retryable, the whole transaction run again from the start. (On a synchronous
 * connection, `transactionOn` keeps it synchronous.)
 */
export async function inTransaction<C, T>(
  dialect: TransactionDialect<C>,
  work: (conn: C) => Awaitable<T>,
): Promise<T> {
  return runSteps(attempts(dialect, work));
}
