import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { FileCheckpointer } from '../src/index.js';
import { entriesOf } from '../src/thread-dir.js';
import { threadName } from '../src/thread-name.js';

// Each create() gets its own temp root; reopen() is a second instance on the same root, and the kit's child
// processes open the built package (dist/, built by the global setup when stale) on it.
describeCheckpointer('file', {
  create: async () => new FileCheckpointer(join(await mkdtemp(join(tmpdir(), 'flow-file-kit-')), 'store')),
  reopen: async (cp) => new FileCheckpointer(cp.dir),
  reopenWith: async (cp, options) => new FileCheckpointer(cp.dir, options),
  // The thread's chunk files (temp files start with a dot).
  countChunks: async (cp, thread) =>
    (await entriesOf(join(cp.dir, 'threads', threadName(thread), 'chunks'))).filter((n) => !n.startsWith('.'))
      .length,
  openInChild: (cp) => ({
    module: new URL('../dist/index.js', import.meta.url),
    export: 'FileCheckpointer',
    args: [cp.dir],
  }),
  cleanup: async (cp) => rm(join(cp.dir, '..'), { recursive: true, force: true }),
  timeout: 20_000,
  capabilities: { writes: true, leases: true, failedRuns: true },
});
