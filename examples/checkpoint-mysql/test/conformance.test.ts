import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { inject } from 'vitest';
import { MysqlCheckpointer } from '../src/index.js';
import { dropTablesStartingWith, uniquePrefix } from './support/tables.js';

const url = inject('mysqlUrl');
const run = inject('mysqlRunPrefix');

describeCheckpointer('mysql', {
  // Fresh, empty storage per call: a table prefix no other test uses (the tables appear on first use).
  create: async () => new MysqlCheckpointer(url, { tablePrefix: uniquePrefix(run) }),
  // Same tables, new pool.
  reopen: async (cp) => new MysqlCheckpointer(url, { tablePrefix: cp.tablePrefix }),
  cleanup: async (cp) => {
    await dropTablesStartingWith(url, cp.tablePrefix);
  },
  timeout: 20_000,
});
