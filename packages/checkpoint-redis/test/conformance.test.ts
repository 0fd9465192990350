import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import { RedisCheckpointer } from '../src/index.js';
import { chunkCount, redisUrl } from './support/stores.js';

describeCheckpointer<RedisCheckpointer>('redis', {
  // Each test gets its own prefix; reopen is a second instance with its own connection on the same prefix, and
  // the kit's child processes open the built package (dist/, built by the global setup when stale) on it.
  create: async () => new RedisCheckpointer(redisUrl, { prefix: uniquePrefix() }),
  reopen: async (cp) => new RedisCheckpointer(redisUrl, { prefix: cp.prefix }),
  reopenWith: async (cp, options) => new RedisCheckpointer(redisUrl, { prefix: cp.prefix, ...options }),
  countChunks: (cp, thread) => chunkCount(cp.prefix, thread),
  openInChild: (cp) => ({
    module: new URL('../dist/index.js', import.meta.url),
    export: 'RedisCheckpointer',
    args: [redisUrl, { prefix: cp.prefix }],
  }),
  cleanup: async (cp) => {
    await deleteKeys(redisUrl, cp.prefix);
  },
  capabilities: { writes: true, leases: true, storeClock: true, failedRuns: true },
});
