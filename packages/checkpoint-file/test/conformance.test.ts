import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { FileCheckpointer } from '../src/index.js';
import { stepFileName } from '../src/layout.js';
import { entriesOf } from '../src/thread-dir.js';
import { threadName } from '../src/thread-name.js';

const stepFile = (cp: FileCheckpointer, at: { thread: string; step: number }) =>
  join(cp.dir, 'threads', threadName(at.thread), stepFileName(at.step));

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
  // A step file overwritten behind the checkpointer's back, as a crash, a bad disk or an editor would leave it.
  damage: {
    'a step file that is not JSON': async (cp, at) => writeFile(stepFile(cp, at), 'this is not json'),
    'an empty step file': async (cp, at) => writeFile(stepFile(cp, at), ''),
    'a step file cut off before its end': async (cp, at) => {
      const bytes = await readFile(stepFile(cp, at));
      await writeFile(stepFile(cp, at), bytes.subarray(0, bytes.length - 8));
    },
    'a step file of valid JSON in another shape': async (cp, at) =>
      writeFile(stepFile(cp, at), '{"hello":"world"}'),
  },
  timeout: 20_000,
  capabilities: { writes: true, leases: true, failedRuns: true },
});
