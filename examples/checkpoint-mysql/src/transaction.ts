import type { TransactionDialect } from '@flow/core';
import type { MysqlConnection, MysqlPool } from './driver.js';

/** InnoDB rolled the whole transaction back to break a deadlock: running it again is safe. */
const ER_LOCK_DEADLOCK = 1213;
/** Attempts before a deadlock is reported; racing writers of one thread settle within a few. */
const ATTEMPTS = 8;

function errno(error: unknown): unknown {
  return (error as { errno?: unknown } | null)?.errno;
}

/**
 * MySQL's words for core's `inTransaction`, on connections of `pool`. InnoDB may pick the transaction as a
 * deadlock victim when writers of one thread race (it then rolls it back entirely); that attempt is run again
 * from the start, as the MySQL manual advises, so its checks run again too.
 */
export function mysqlTransactions(pool: MysqlPool): TransactionDialect<MysqlConnection> {
  return {
    connect: () => pool.getConnection(),
    begin: (db) => db.query('START TRANSACTION'),
    commit: (db) => db.query('COMMIT'),
    rollback: (db) => db.query('ROLLBACK'),
    // A connection whose ROLLBACK failed is gone or confused: never hand it to the next caller.
    release: (db, failure) => (failure?.broken ? db.destroy() : db.release()),
    retryable: (error) => errno(error) === ER_LOCK_DEADLOCK,
    attempts: ATTEMPTS,
  };
}
