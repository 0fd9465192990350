import { flowPrefix, InvalidArgumentError } from '@flow/core';
import { createPool as createMysqlPool } from 'mysql2/promise';
import type { MysqlPool } from './driver.js';

/**
 * A pool for a connection URL, owned (and ended) by the checkpointer that made it. utf8mb4 is mysql2's
 * default charset; it is set here anyway because a 3-byte `utf8` connection cannot carry emoji thread ids.
 */
export function createPool(url: string): MysqlPool {
  if (url.trim() === '') throw new InvalidArgumentError(`${flowPrefix('mysql')}the connection URL is empty`);
  return createMysqlPool({ uri: url, charset: 'utf8mb4', connectTimeout: 10_000 }) as unknown as MysqlPool;
}

/** True when `value` has the pool methods this backend calls. */
export function isPool(value: unknown): value is MysqlPool {
  if (typeof value !== 'object' || value === null) return false;
  const pool = value as Partial<Record<keyof MysqlPool, unknown>>;
  return (
    typeof pool.execute === 'function' &&
    typeof pool.query === 'function' &&
    typeof pool.getConnection === 'function' &&
    typeof pool.end === 'function'
  );
}
