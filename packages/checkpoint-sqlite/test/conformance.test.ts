import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { SqliteCheckpointer } from '../src/index.js';

// A temp file per created checkpointer; reopen opens a second connection on the same file, and the kit's
// child processes open the built package (dist/, built by the global setup when stale) on it.
describeCheckpointer('sqlite', {
  create: async () => new SqliteCheckpointer(join(mkdtempSync(join(tmpdir(), 'flow-kit-')), 'flow.db')),
  reopen: async (cp) => new SqliteCheckpointer(cp.filename),
  openInChild: (cp) => ({
    module: new URL('../dist/index.js', import.meta.url),
    export: 'SqliteCheckpointer',
    args: [cp.filename],
  }),
  cleanup: async (cp) => rmSync(dirname(cp.filename), { recursive: true, force: true }),
  capabilities: { writes: true, leases: true, failedRuns: true },
});

// ':memory:' is private to its connection, so there is nothing to reopen and no child process can open it:
// the kit reports durability and process races as not declared for this harness.
describeCheckpointer('sqlite :memory:', {
  create: async () => new SqliteCheckpointer(':memory:'),
  capabilities: { writes: true, leases: true, failedRuns: true },
});
