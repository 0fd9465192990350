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

/** What a checked-out client's 'error' event goes to: the failed query already rejects with the error. */
function heard(): void {}

/** A client emitter's methods, when it has them (a `pg` client does; a test's stand-in may not). */
type Emitter = {
  on?: (event: 'error', listener: () => void) => unknown;
  removeListener?: (event: 'error', listener: () => void) => unknown;
};

/** `pg.Pool#connect` also takes a callback, which it calls as it hands the client out. */
type ConnectWithCallback = (callback: (error: unknown, client?: PgPoolClient) => void) => unknown;

/**
 * Checks a client out of `pool` for a transaction, listening to its 'error' event while it is out: the pool's
 * own listener hears only idle clients, and a connection the server drops mid-transaction (a restart, a
 * terminated backend) emits 'error' on the client, which unheard crashes the process. Its query rejects
 * anyway, so the call fails with StorageError.
 *
 * The callback form, so the listener is on before anything else runs: with the promise it would come a
 * microtask late, after the rest of the socket's chunk (a new connection's ready message and the server's
 * FATAL can arrive together). A pool that only returns a promise is listened to when it resolves.
 */
export function checkOut(pool: PgPool): Promise<PgPoolClient> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: unknown, client?: PgPoolClient) => {
      if (settled) return;
      settled = true;
      if (client === undefined) return reject(error);
      (client as Emitter).on?.('error', heard);
      resolve(client);
    };
    const result = (pool.connect as unknown as ConnectWithCallback).call(pool, settle);
    if (typeof (result as Promise<PgPoolClient> | undefined)?.then === 'function') {
      (result as Promise<PgPoolClient>).then((client) => settle(undefined, client), settle);
    }
  });
}

/**
 * Hands a client of `checkOut` back; when `failed`, the pool destroys it (the connection may be broken) and
 * the listener stays, for an error the dying connection may still emit.
 */
export function checkIn(client: PgPoolClient, failed: boolean, failure?: unknown): void {
  if (!failed) (client as Emitter).removeListener?.('error', heard);
  client.release(failed ? releaseError(failure) : undefined);
}

/** Transactions on clients of `pool`: after a failure the client may be broken, so the pool drops it. */
export function pgTransactions(pool: PgPool): TransactionDialect<PgPoolClient> {
  return {
    ...PG_TRANSACTION,
    connect: () => checkOut(pool),
    release: (client, failure) => checkIn(client, failure !== undefined, failure?.error),
  };
}
