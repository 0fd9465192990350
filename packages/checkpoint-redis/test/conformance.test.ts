import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import { RedisCheckpointer } from '../src/index.js';
import { redisUrl } from './support.js';

describeCheckpointer<RedisCheckpointer>('redis', {
  // Each test gets its own prefix; reopen is a second instance with its own connection on the same prefix.
  create: async () => new RedisCheckpointer(redisUrl, { prefix: uniquePrefix() }),
  reopen: async (cp) => new RedisCheckpointer(redisUrl, { prefix: cp.prefix }),
  cleanup: async (cp) => {
    await deleteKeys(redisUrl, cp.prefix);
  },
});
