import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeProcessRaces } from '@flow/checkpoint-conformance';
import { SqliteCheckpointer } from '../src/index.js';

// The kit's races between processes: its child processes open the built package (dist/, built by the
// global setup when stale) on the same database file.
describeProcessRaces('sqlite', {
  create: async () =>
    new SqliteCheckpointer(join(mkdtempSync(join(tmpdir(), 'flow-sqlite-procs-')), 'flow.db')),
  cleanup: async (cp) => rmSync(dirname(cp.filename), { recursive: true, force: true }),
  openInChild: (cp) => ({
    module: new URL('../dist/index.js', import.meta.url),
    export: 'SqliteCheckpointer',
    args: [cp.filename],
  }),
});
