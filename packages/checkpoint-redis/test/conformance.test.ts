import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import { RedisCheckpointer } from '../src/index.js';
import { chunkCount, plainClient, redisUrl } from './support/stores.js';

/** Edits one field of a step in the thread's checkpoints hash (`N:s` its state, `N:m` meta, `N:p` payload). */
function editField(field: string, edit: (text: string) => string) {
  return async (cp: RedisCheckpointer, at: { thread: string; step: number }) => {
    const admin = plainClient();
    const key = `${cp.prefix}:cp|${at.thread}`;
    const text = await admin.hget(key, `${at.step}:${field}`);
    if (text === null) throw new Error(`no field ${at.step}:${field} in ${key} to damage`);
    await admin.hset(key, `${at.step}:${field}`, edit(text));
  };
}

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
  // A field of the checkpoints hash overwritten by another client.
  damage: {
    'a state cut off mid-text': editField('s', (text) => text.slice(0, -3)),
    'an interrupt payload cut off mid-text': editField('p', (text) => text.slice(0, -3)),
    'record fields that are not JSON': editField('m', () => 'not json'),
  },
  capabilities: { writes: true, leases: true, storeClock: true, failedRuns: true },
});
