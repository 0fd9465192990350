import { afterEach, inject } from 'vitest';
import { MysqlCheckpointer, type MysqlCheckpointerOptions, type MysqlPool } from '../../src/index.js';
import { dropTablesStartingWith, uniquePrefix } from './tables.js';

export const url = inject('mysqlUrl');
const run = inject('mysqlRunPrefix');

const opened: MysqlCheckpointer[] = [];
const prefixes: string[] = [];

/** A fresh table prefix, whose tables are dropped after the test. */
export function freshPrefix(): string {
  const prefix = uniquePrefix(run);
  prefixes.push(prefix);
  return prefix;
}

/** A checkpointer on fresh tables, closed and dropped after the test. */
export function freshStore(
  options: MysqlCheckpointerOptions = {},
  urlOrPool: string | MysqlPool = url,
): MysqlCheckpointer {
  const cp = new MysqlCheckpointer(urlOrPool, { tablePrefix: freshPrefix(), ...options });
  opened.push(cp);
  return cp;
}

afterEach(async () => {
  for (const cp of opened.splice(0)) await cp.close();
  for (const prefix of prefixes.splice(0)) await dropTablesStartingWith(url, prefix);
});
