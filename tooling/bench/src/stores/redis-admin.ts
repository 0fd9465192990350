import { Redis } from 'ioredis';
import type { Counters } from './counters.js';
import { countRedis } from './counters.js';

/** A client for one store under test, its commands and round trips counted. */
export async function countedRedis(url: string, counters: Counters): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  client.on('error', () => {});
  await client.connect();
  countRedis(client, counters);
  return client;
}

/** Escapes Redis glob characters so `prefix` matches only itself. */
function escapeGlob(prefix: string): string {
  return prefix.replace(/[\\*?[\]^-]/g, (c) => `\\${c}`);
}

/** Keys under `prefix`, found with SCAN (never KEYS, which blocks the shared server). */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await client.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** Bytes Redis spends on every key under `prefix` (`MEMORY USAGE … SAMPLES 0`: exact, values and overhead). */
export async function prefixBytes(url: string, prefix: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  try {
    const keys = await keysUnder(client, prefix);
    const pipeline = client.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', 0);
    const results = (await pipeline.exec()) ?? [];
    return results.reduce((sum, [, bytes]) => sum + Number(bytes ?? 0), 0);
  } finally {
    client.disconnect();
  }
}

/** Names of the modules the server loads (Redis Stack has `ReJSON` and `search`). */
export async function serverModules(url: string): Promise<string[]> {
  const client = new Redis(url, { lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  try {
    const list = (await client.call('MODULE', 'LIST')) as unknown[][];
    return list.map((entry) => String(entry[1]));
  } finally {
    client.disconnect();
  }
}
