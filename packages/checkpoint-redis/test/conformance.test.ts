import { describeCheckpointer } from '@flow/checkpoint-conformance';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import { RedisCheckpointer } from '../src/index.js';
import { editPacked } from './support/packed-step.js';
import { chunkCount, plainClient, redisUrl } from './support/stores.js';

/** Edits one part of a step's packed field in the thread's checkpoints hash (its state, payload or meta). */
function editPart(part: 'meta' | 'payload' | 'state', edit: (text: string) => string) {
  return (cp: RedisCheckpointer, at: { thread: string; step: number }) =>
    editPacked(plainClient(), `${cp.prefix}:cp|${at.thread}`, at.step, part, edit);
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
  // A part of a step's field in the checkpoints hash overwritten by another client.
  damage: {
    'a state cut off mid-text': editPart('state', (text) => text.slice(0, -3)),
    'an interrupt payload cut off mid-text': editPart('payload', (text) => text.slice(0, -3)),
    'record fields that are not JSON': editPart('meta', () => 'not json'),
  },
  capabilities: { writes: true, leases: true, storeClock: true, failedRuns: true },
});
