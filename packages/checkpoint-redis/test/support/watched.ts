import { afterAll, beforeAll } from 'vitest';
import type { RedisCheckpointerOptions } from '../../src/index.js';
import { watch } from './monitor.js';
import { ProbeCheckpointer } from './probe-checkpointer.js';
import { freshPrefix, redisUrl } from './stores.js';

/**
 * A set-up checkpointer on a fresh prefix and a MONITOR on its connection, for the calling `describe` block:
 * `during(fn)` returns what the checkpointer sent while `fn` ran.
 */
export function watched(options: RedisCheckpointerOptions = {}) {
  const prefix = freshPrefix();
  const cp = new ProbeCheckpointer(redisUrl, { prefix, ...options });
  let monitor: Awaited<ReturnType<typeof watch>>;
  beforeAll(async () => {
    await cp.setup();
    monitor = await watch(redisUrl, cp.connection, prefix);
  });
  afterAll(async () => {
    monitor.close();
    await cp.close();
  });
  return { prefix, cp, during: (fn: () => Promise<unknown>) => monitor.during(fn) };
}
