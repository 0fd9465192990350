import { assertInteger } from '@flow/core';
import pg from 'pg';
import type { PgPool } from './driver.js';

/** The default `queryTimeout` (ms) of a pool made from a URL. */
export const DEFAULT_QUERY_TIMEOUT = 30_000;

/** A pool for a connection URL (checked by `parseConnectionUrl`), owned (and ended) by the checkpointer that made it. */
export function createPool(url: string, queryTimeout = DEFAULT_QUERY_TIMEOUT): PgPool {
  assertInteger(queryTimeout, 'queryTimeout', 1, 2 ** 31 - 1);
  // query_timeout: a query the server never answers (a stalled link) fails, and pg drops that connection.
  // A stalled link also stalls the next connection's handshake: the connect timeout is no longer than it.
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: Math.min(10_000, queryTimeout),
    query_timeout: queryTimeout,
  });
  // An idle connection the server drops emits 'error' on the pool; unheard, Node would crash the process.
  // The pool already discards that connection, and the next query opens a fresh one.
  pool.on('error', () => {});
  return pool;
}

/** True when `value` has the pool methods this backend calls. */
export function isPool(value: unknown): value is PgPool {
  if (typeof value !== 'object' || value === null) return false;
  const pool = value as Partial<Record<keyof PgPool, unknown>>;
  return (
    typeof pool.query === 'function' && typeof pool.connect === 'function' && typeof pool.end === 'function'
  );
}

/** pg's default pool size, assumed for a pool that does not say its own. */
const DEFAULT_POOL_SIZE = 10;

/** How many connections `pool` holds at most (`pg.Pool`'s `options.max`): as many puts go out at once. */
export function poolSize(pool: PgPool): number {
  const max = (pool as { options?: { max?: unknown } }).options?.max;
  return typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : DEFAULT_POOL_SIZE;
}
