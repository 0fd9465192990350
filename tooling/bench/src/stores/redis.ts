import { RedisCheckpointer } from '@flow/checkpoint-redis';
import type { Checkpointer } from '@flow/core';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import type { BenchContext } from '../context.js';
import { newCounters } from './counters.js';
import { flowSubject } from './flow-subject.js';
import { countedRedis, prefixBytes, serverModules } from './redis-admin.js';
import { rawRedis } from './redis-raw.js';
import type { BackendSuite, OpenedStore } from './types.js';

/** @flow's `RedisCheckpointer` on a fresh prefix, given a counted client of its own. */
async function openFlow(
  ctx: BenchContext,
  url: string,
  stateStorage?: 'whole',
): Promise<OpenedStore<Checkpointer>> {
  const prefix = uniquePrefix();
  const counters = newCounters();
  const client = await countedRedis(url, counters);
  const store = new RedisCheckpointer(client, {
    prefix,
    ...(stateStorage === undefined ? {} : { stateStorage }),
  });
  const close = ctx.track(async () => {
    await store.close();
    client.disconnect();
    await deleteKeys(url, prefix);
  });
  await store.setup();
  return { store, counters, storedBytes: () => prefixBytes(url, prefix), close };
}

/** The Redis comparison: the bare driver and `RedisCheckpointer` (LangGraph's saver cannot run here). */
export async function redisSuite(ctx: BenchContext): Promise<BackendSuite<Checkpointer, never>> {
  const url = ctx.redisUrl;
  if (url === undefined) throw new Error('no Redis server resolved');
  const modules = await serverModules(url);
  return {
    id: 'redis',
    subjects: [rawRedis(ctx, url), flowSubject('RedisCheckpointer', () => openFlow(ctx, url))],
    listingFloor: rawRedis(ctx, url, true),
    flowStore: () => openFlow(ctx, url),
    flowStoreWhole: () => openFlow(ctx, url, 'whole'),
    langgraphStore: undefined,
    notes: [
      'redis: LangGraph.js is not measured: its RedisSaver (@langchain/langgraph-checkpoint-redis) needs the ' +
        `RedisJSON and RediSearch modules of Redis Stack; this server loads ${modules.length ? modules.join(', ') : 'no modules'}.`,
      'redis: each side has one ioredis client; commands are counted by wrapping sendCommand (MULTI and EXEC ' +
        'count), round trips as requests written (a MULTI or pipeline is one).',
    ],
  };
}
