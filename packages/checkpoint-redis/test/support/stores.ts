import { deleteKeys, uniquePrefix } from '@flow/test-db';
import { Redis } from 'ioredis';
import { afterAll, inject } from 'vitest';
import { RedisCheckpointer, type RedisCheckpointerOptions } from '../../src/index.js';
import { keyLayout } from '../../src/keys.js';

/** The Redis server of this test run (resolved once by the global setup). */
export const redisUrl: string = inject('flowTestRedisUrl');

const opened: Array<{ close(): Promise<unknown> }> = [];
const prefixes: string[] = [];

afterAll(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close().catch(() => {})));
  await Promise.all(prefixes.splice(0).map((p) => deleteKeys(redisUrl, p)));
});

/** A prefix no other test uses; its keys are deleted after the file. */
export function freshPrefix(): string {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  return prefix;
}

/** A checkpointer on a fresh prefix (or the given one), closed after the file. */
export function checkpointer(options: RedisCheckpointerOptions = {}, url = redisUrl): RedisCheckpointer {
  const cp = new RedisCheckpointer(url, { prefix: freshPrefix(), ...options });
  opened.push(cp);
  return cp;
}

/** A plain ioredis client of the test's own (for admin commands or to hand in), closed after the file. */
export function plainClient(url = redisUrl): Redis {
  const client = new Redis(url);
  opened.push({ close: async () => client.disconnect() });
  return client;
}

/** Every key under `prefix`, as stored. */
export async function keysOf(admin: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    found.push(...keys);
  } while (cursor !== '0');
  return found.sort();
}

/** How many chunks the single-node store under `prefix` holds for `thread`, on a connection of its own. */
export async function chunkCount(prefix: string, thread: string, url = redisUrl): Promise<number> {
  const client = new Redis(url);
  try {
    return await client.hlen(keyLayout(prefix).chunks(thread));
  } finally {
    client.disconnect();
  }
}
