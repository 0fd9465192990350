import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { Checkpoint, type Checkpointer } from '@flow/core';
import { keyRunPrefix, schemaRunPrefix } from '@flow/test-db';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BenchContext, createContext } from '../src/context.js';
import { growingStates } from '../src/data.js';
import { parseOptions } from '../src/options.js';
import { memorySuite } from '../src/stores/memory.js';
import { postgresSuite } from '../src/stores/postgres.js';
import { redisSuite } from '../src/stores/redis.js';
import { sqliteSuite } from '../src/stores/sqlite.js';
import type { BackendSuite, StoreSubject } from '../src/stores/types.js';

let ctx: BenchContext;
const suites: BackendSuite[] = [];
const states = growingStates(3, 600);

beforeAll(async () => {
  ctx = await createContext(parseOptions(['--quick', '--no-write'], ''));
  suites.push(await memorySuite(), await sqliteSuite(ctx), await postgresSuite(ctx), await redisSuite(ctx));
}, 30_000);

afterAll(() => ctx.cleanup());

async function fill(subject: StoreSubject): Promise<void> {
  for (const thread of ['a', 'b']) {
    for (const [step, state] of states.entries()) await subject.put(thread, step, state);
  }
}

describe('every store the bench compares', () => {
  for (const backend of ['memory', 'sqlite', 'postgres', 'redis']) {
    it(`${backend}: each side reads back the latest state, the newest steps, and every thread`, async () => {
      const suite = suites.find((s) => s.id === backend)!;
      const sides = suite.subjects.map((f) => f.side);
      expect(sides.slice(0, 2)).toEqual(['raw', 'flow']);
      for (const factory of suite.subjects) {
        const subject = await factory.open();
        try {
          await fill(subject);
          const latest = (await subject.getLatest('a')) as { messages: unknown[] };
          expect(latest.messages, factory.label).toHaveLength(3);
          expect(await subject.list('b', 2), factory.label).toBe(2);
          if (subject.listThreads) expect(await subject.listThreads(), factory.label).toBe(2);
          if (subject.storedBytes) expect(await subject.storedBytes(), factory.label).toBeGreaterThan(1000);
          await expect(subject.getLatest('missing'), factory.label).rejects.toThrow();
        } finally {
          await subject.close();
        }
      }
    });
  }

  it('counts one statement per raw Postgres put and get, and a MULTI of four commands in one trip on Redis', async () => {
    for (const [backend, perPut] of [
      ['postgres', { commands: 1, roundTrips: 1 }],
      ['redis', { commands: 4, roundTrips: 1 }],
    ] as const) {
      const subject = await suites.find((s) => s.id === backend)!.subjects[0]!.open();
      try {
        const before = { ...subject.counters! };
        await subject.put('t', 0, states[0]!);
        expect({
          commands: subject.counters!.commands - before.commands,
          roundTrips: subject.counters!.roundTrips - before.roundTrips,
        }).toEqual(perPut);
      } finally {
        await subject.close();
      }
    }
  });

  it('counts the chunks of linear states in the bytes of Postgres and Redis', async () => {
    // Random text, so that no compression can make the chunks take less room than their text.
    const noise = (n: number) => randomBytes(n).toString('base64url');
    const state = { messages: Array.from({ length: 40 }, () => ({ role: 'tool', content: noise(3000) })) };
    for (const backend of ['postgres', 'redis']) {
      const opened = await suites.find((s) => s.id === backend)!.flowStore();
      try {
        const store = opened.store as Checkpointer;
        const bytesAfter = async (step: number) => {
          await store.put(new Checkpoint({ thread: 't', step, state: { ...state, n: step } }));
          return opened.storedBytes!();
        };
        const text = JSON.stringify(state).length;
        // Step 0 is whole (it has nothing to share); step 1 stores its parts as chunks, step 2 shares them.
        const [whole, chunked, shared] = [await bytesAfter(0), await bytesAfter(1), await bytesAfter(2)];
        expect(chunked - whole, backend).toBeGreaterThan(0.9 * text);
        expect(shared - chunked, backend).toBeLessThan(0.2 * text);
      } finally {
        await opened.close();
      }
    }
  });

  it('leaves no file, schema or key behind once every store is closed', async () => {
    for (const suite of suites.filter((s) => s.id !== 'memory')) {
      for (const factory of suite.subjects) await (await factory.open()).close();
    }
    expect(readdirSync(ctx.tmpDir)).toEqual([]);
    const client = new pg.Client({ connectionString: ctx.postgresUrl });
    await client.connect();
    const { rows } = await client.query('SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1)', [
      schemaRunPrefix(),
    ]);
    await client.end();
    expect(rows).toEqual([]);
    const redis = new Redis(ctx.redisUrl!);
    const [, keys] = await redis.scan('0', 'MATCH', `${keyRunPrefix()}*`, 'COUNT', 10_000);
    redis.disconnect();
    expect(keys).toEqual([]);
  });

  it('removes its temp directory on cleanup', async () => {
    const other = await createContext(parseOptions(['--backends', 'sqlite', '--no-write'], ''));
    expect(existsSync(other.tmpDir)).toBe(true);
    await other.cleanup();
    expect(existsSync(other.tmpDir)).toBe(false);
  });
});
