import { flowPrefix, InvalidArgumentError } from '@flow/core';

const TABLE_PREFIX = /^[a-z0-9_]{1,32}$/;

/**
 * Checks a table prefix: 1–32 lower-case letters, digits or `_`. Lower case only, because MySQL table names
 * are case-sensitive on Linux but not on macOS or Windows: `Flow_` and `flow_` would be two stores on one
 * server and one on another. 32 leaves room for the longest table name under MySQL's 64-character limit.
 */
export function assertTablePrefix(prefix: unknown): asserts prefix is string {
  if (typeof prefix !== 'string' || !TABLE_PREFIX.test(prefix)) {
    const got = typeof prefix === 'string' ? JSON.stringify(prefix) : String(prefix);
    throw new InvalidArgumentError(
      `${flowPrefix('mysql')}tablePrefix must match ${TABLE_PREFIX} (1–32 lower-case letters, digits or _), got ${got}`,
    );
  }
}
