import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProcessRaces } from '@flow/checkpoint-conformance';
import { FileCheckpointer } from '../src/index.js';
import { ensureBuilt } from './build-dist.js';

// The kit's races between processes: its child processes open the built package (dist/) on the same root.
describeProcessRaces('file', {
  create: async () => new FileCheckpointer(join(await mkdtemp(join(tmpdir(), 'flow-file-procs-')), 'store')),
  cleanup: async (cp) => rm(join(cp.dir, '..'), { recursive: true, force: true }),
  openInChild: (cp) => {
    ensureBuilt();
    return {
      module: new URL('../dist/index.js', import.meta.url),
      export: 'FileCheckpointer',
      args: [cp.dir],
    };
  },
});
