import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { MemoryCheckpointer } from '../src/index.js';

// No reopen: a MemoryCheckpointer's data lives in the instance, so there is no second instance on the same
// storage. The kit says so in its test names ("durability: not declared by harness ...").
describeCheckpointer('memory', {
  create: async () => new MemoryCheckpointer(),
  countChunks: async (cp, thread) => cp.chunkCount(thread),
  capabilities: { writes: true, leases: true, failedRuns: true },
});
