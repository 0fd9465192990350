import { InvalidArgumentError } from '@flow/core';
import pg from 'pg';
import type { PgPool } from './driver.js';

/** A pool for a connection URL, owned (and ended) by the checkpointer that made it. */
export function createPool(url: string): PgPool {
  if (url.trim() === '') throw new InvalidArgumentError('[flow:postgres] the connection URL is empty');
  const pool = new pg.Pool({ connectionString: url, connectionTimeoutMillis: 10_000 });
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
