import { describeProcessRaces } from '@flow/checkpoint-conformance';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import { RedisCheckpointer } from '../src/index.js';
import { ensureBuilt } from './ensure-dist.js';
import { redisUrl } from './support.js';

// The kit's races between processes: its child processes open the built package (dist/) on the same prefix.
describeProcessRaces<RedisCheckpointer>('redis', {
  create: async () => new RedisCheckpointer(redisUrl, { prefix: uniquePrefix() }),
  cleanup: async (cp) => {
    await deleteKeys(redisUrl, cp.prefix);
  },
  openInChild: (cp) => {
    ensureBuilt();
    return {
      module: new URL('../dist/index.js', import.meta.url),
      export: 'RedisCheckpointer',
      args: [redisUrl, { prefix: cp.prefix }],
    };
  },
});
