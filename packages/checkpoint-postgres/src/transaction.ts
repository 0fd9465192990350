import type { TransactionDialect, TransactionStatements } from '@flow/core';
import type { PgPool, PgPoolClient } from './driver.js';

/** Postgres's words for core's transaction lifecycle. */
export const PG_TRANSACTION: TransactionStatements<PgPoolClient> = {
  begin: (client) => client.query({ text: 'BEGIN' }),
  commit: (client) => client.query({ text: 'COMMIT' }),
  rollback: (client) => client.query({ text: 'ROLLBACK' }),
};

/** An Error for `client.release`, which destroys a client handed back with one instead of reusing it. */
export function releaseError(failure: unknown): Error {
  return failure instanceof Error ? failure : new Error(String(failure));
}

/** Transactions on clients of `pool`: after a failure the client may be broken, so the pool drops it. */
export function pgTransactions(pool: PgPool): TransactionDialect<PgPoolClient> {
  return {
    ...PG_TRANSACTION,
    connect: () => pool.connect(),
    release: (client, failure) => client.release(failure && releaseError(failure.error)),
  };
}
