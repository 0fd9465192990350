import { describeCheckpointer } from '../src/index.js';
import {
  ReferenceCheckpointer,
  referenceDamage,
  referenceRefusal,
  referenceReleases,
} from './fixtures/reference-checkpointer.js';

// The whole kit against the correct reference backend, with reopen (instances sharing one store), so the
// durability and cross-instance race suites run here too.
describeCheckpointer('reference', {
  create: async () => new ReferenceCheckpointer(),
  reopen: async (cp) => new ReferenceCheckpointer({ store: cp.shared }),
  reopenWith: async (cp, { stateStorage }) => new ReferenceCheckpointer({ store: cp.shared, stateStorage }),
  countChunks: async (cp, thread) => cp.chunkCount(thread),
  damage: referenceDamage,
  refuse: referenceRefusal,
  ...referenceReleases(),
  capabilities: { writes: true, leases: true, failedRuns: true },
});
