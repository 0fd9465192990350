import { deleteKeys, uniquePrefix } from '@flow/test-db';
import type { Redis } from 'ioredis';
import type { BenchContext } from '../context.js';
import type { ChatState } from '../data.js';
import { newCounters } from './counters.js';
import { countedRedis, keysUnder, prefixBytes } from './redis-admin.js';
import type { StoreSubject, SubjectFactory } from './types.js';

/** Reads the newest `ARGV[2]` states of a thread in one round trip: its step index, then the values. */
const READ_LATEST = `
local steps = redis.call('ZREVRANGE', KEYS[1], 0, tonumber(ARGV[2]) - 1)
if #steps == 0 then return {} end
local keys = {}
for i, step in ipairs(steps) do keys[i] = ARGV[1] .. step end
return redis.call('MGET', unpack(keys))`;

interface RawRedis extends Redis {
  rawRead(index: string, statePrefix: string, limit: number): Promise<string[]>;
}

/**
 * The Redis floor: one MULTI holding SET of the state and ZADD of the step into the thread's step index, so
 * a put is one round trip. Reading the latest steps is one small Lua script (the index, then MGET). With no
 * thread index, the thread scan is SCAN over the step indexes plus one pipelined ZREVRANGE each.
 *
 * `threadIndex`: the listing floor. The same MULTI also keeps one sorted set of (thread, latest step) by
 * `ZADD GT`, and the thread scan is a single `ZRANGE … WITHSCORES` of it: the cheapest listing there is.
 */
export function rawRedis(ctx: BenchContext, url: string, threadIndex = false): SubjectFactory {
  return {
    side: 'raw',
    label: threadIndex ? 'MULTI SET + ZADD, ZRANGE of a thread index' : 'MULTI SET + ZADD',
    async open(): Promise<StoreSubject> {
      const prefix = uniquePrefix();
      const counters = newCounters();
      const client = (await countedRedis(url, counters)) as RawRedis;
      client.defineCommand('rawRead', { numberOfKeys: 1, lua: READ_LATEST });
      const close = ctx.track(async () => {
        client.disconnect();
        await deleteKeys(url, prefix);
      });
      const stateKey = (thread: string) => `${prefix}:s:${thread}:`;
      const indexKey = (thread: string) => `${prefix}:i:${thread}`;
      const threadsKey = `${prefix}:threads`;
      const read = async (thread: string, limit: number) =>
        (await client.rawRead(indexKey(thread), stateKey(thread), limit)).map((t) => JSON.parse(t));
      return {
        async put(thread: string, step: number, state: ChatState) {
          const multi = client
            .multi()
            .set(stateKey(thread) + step, JSON.stringify(state))
            .zadd(indexKey(thread), step, String(step));
          if (threadIndex) multi.zadd(threadsKey, 'GT', step, thread);
          const failed = (await multi.exec())!.find(([error]) => error);
          if (failed) throw failed[0];
        },
        async getLatest(thread: string) {
          const [state] = await read(thread, 1);
          if (state === undefined) throw new Error(`raw redis: thread ${thread} not found`);
          return state;
        },
        async list(thread: string, limit: number) {
          return (await read(thread, limit)).length;
        },
        async listThreads() {
          if (threadIndex) return (await client.zrange(threadsKey, 0, -1, 'WITHSCORES')).length / 2;
          const indexes = await keysUnder(client, `${prefix}:i:`);
          const pipeline = client.pipeline();
          for (const key of indexes) pipeline.zrevrange(key, 0, 0, 'WITHSCORES');
          await pipeline.exec();
          return indexes.sort().length;
        },
        storedBytes: () => prefixBytes(url, prefix),
        counters,
        close,
      };
    },
  };
}
