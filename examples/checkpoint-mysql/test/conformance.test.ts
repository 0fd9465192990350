import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { createConnection } from 'mysql2/promise';
import { inject } from 'vitest';
import { MysqlCheckpointer } from '../src/index.js';
import { firstReleaseStore } from './support/first-release.js';
import { dropTablesStartingWith, uniquePrefix } from './support/tables.js';

const url = inject('mysqlUrl');
const run = inject('mysqlRunPrefix');

/** Sets one column of one checkpoint row by hand, on a connection of the test's own. */
function editColumn(set: string) {
  return async (cp: MysqlCheckpointer, at: { thread: string; step: number }) => {
    const conn = await createConnection({ uri: url });
    try {
      const [result] = await conn.execute(
        `UPDATE \`${cp.tablePrefix}checkpoints\` SET ${set} WHERE thread = ? AND step = ?`,
        [at.thread, at.step],
      );
      if ((result as { affectedRows: number }).affectedRows !== 1) throw new Error('no row to damage');
    } finally {
      await conn.end();
    }
  };
}

describeCheckpointer('mysql', {
  // Fresh, empty storage per call: a table prefix no other test uses (the tables appear on first use).
  create: async () => new MysqlCheckpointer(url, { tablePrefix: uniquePrefix(run) }),
  // Same tables, new pool.
  reopen: async (cp) => new MysqlCheckpointer(url, { tablePrefix: cp.tablePrefix }),
  reopenWith: async (cp, options) => new MysqlCheckpointer(url, { tablePrefix: cp.tablePrefix, ...options }),
  countChunks: async (cp, thread) => {
    const conn = await createConnection({ uri: url });
    try {
      const [rows] = await conn.execute(
        `SELECT count(*) AS n FROM \`${cp.tablePrefix}chunks\` WHERE thread = ?`,
        [thread],
      );
      return Number((rows as { n: number }[])[0]!.n);
    } finally {
      await conn.end();
    }
  },
  // The kit's child processes open the built package (scripts/ci.sh builds dist/ before the tests).
  openInChild: (cp) => ({
    module: new URL('../dist/index.js', import.meta.url),
    export: 'MysqlCheckpointer',
    args: [url, { tablePrefix: cp.tablePrefix }],
  }),
  cleanup: async (cp) => {
    await dropTablesStartingWith(url, cp.tablePrefix);
  },
  // A column edited by hand, as another client could.
  damage: {
    'a state cut off mid-text': editColumn('state = LEFT(state, CHAR_LENGTH(state) - 3)'),
    'a next that is not JSON': editColumn(`next = 'oops'`),
    'meta that is not JSON': editColumn(`meta = 'not json'`),
  },
  // The tables exactly as the first release created them (no version table), with two threads.
  earlierReleases: {
    'the first release': async () => {
      const tablePrefix = uniquePrefix(run);
      await firstReleaseStore(url, tablePrefix);
      return new MysqlCheckpointer(url, { tablePrefix });
    },
  },
  // Tables set up by this release, with a newer release's version recorded by hand.
  newerRelease: async () => {
    const tablePrefix = uniquePrefix(run);
    const current = new MysqlCheckpointer(url, { tablePrefix });
    await current.setup();
    await current.close();
    const conn = await createConnection({ uri: url });
    try {
      await conn.query(
        `INSERT INTO \`${tablePrefix}migrations\` (version, name) VALUES (1000, 'a newer release')`,
      );
    } finally {
      await conn.end();
    }
    return new MysqlCheckpointer(url, { tablePrefix });
  },
  timeout: 20_000,
  // Per-step writes, leases (expiring by the server's clock) and failed runs: the kit checks each.
  capabilities: { writes: true, leases: true, storeClock: true, failedRuns: true },
});
