import { describeEncryptedStorage } from '@flow/checkpoint-conformance';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import { RedisCheckpointer } from '../src/index.js';
import { redisUrl } from './support/stores.js';

// The kit's serialization suite and round trips through encryptedSerializer, on a key prefix per instance.
describeEncryptedStorage<RedisCheckpointer>('redis', {
  create: async (serializer) => new RedisCheckpointer(redisUrl, { prefix: uniquePrefix(), serializer }),
  reopen: async (cp, serializer) => new RedisCheckpointer(redisUrl, { prefix: cp.prefix, serializer }),
  cleanup: async (cp) => {
    await deleteKeys(redisUrl, cp.prefix);
  },
});
