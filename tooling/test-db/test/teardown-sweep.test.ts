import { Redis } from 'ioredis';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { TestProject } from 'vitest/node';
import { RUN_ID_ENV, uniquePrefix, uniqueSchema } from '../src/index.js';
import setupPostgres from '../src/setup-postgres.js';
import setupRedis from '../src/setup-redis.js';

// Runs a global setup inside this worker, as if it were a run of its own, and checks its teardown.
const saved = { ...process.env };
const provided: Record<string, unknown> = {};
const project = {
  provide: (key: string, value: unknown) => (provided[key] = value),
} as unknown as TestProject;

beforeEach(() => {
  // Another pid than the main process owns the run id here, so the setup starts a run of its own.
  delete process.env.FLOW_TEST_RUN_OWNER;
});
afterEach(() => {
  process.env = { ...saved };
});

describe('the global setups tear down what their run left behind', () => {
  it('drops the schemas of the run, and only those', async () => {
    const outside = uniqueSchema();
    const teardown = await setupPostgres(project);
    expect(process.env[RUN_ID_ENV]).not.toBe(saved[RUN_ID_ENV]);
    const leftover = uniqueSchema();
    const client = new pg.Client(inject('flowTestPostgresUrl'));
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${leftover}"; CREATE SCHEMA "${outside}"`);
      await teardown();
      const { rows } = await client.query(
        'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1) ORDER BY nspname',
        [[leftover, outside]],
      );
      expect(rows.map((r) => r.nspname)).toEqual([outside]);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${outside}"`);
      await client.end();
    }
    expect(provided.flowTestPostgresUrl).toBe(inject('flowTestPostgresUrl'));
  });

  it('deletes the keys of the run, and only those', async () => {
    const outside = uniquePrefix();
    const teardown = await setupRedis(project);
    const leftover = uniquePrefix();
    const client = new Redis(inject('flowTestRedisUrl'));
    try {
      await client.set(`${leftover}:k`, '1');
      await client.set(`${outside}:k`, '1');
      await teardown();
      expect(await client.exists(`${leftover}:k`, `${outside}:k`)).toBe(1);
      expect(await client.get(`${outside}:k`)).toBe('1');
    } finally {
      await client.del(`${outside}:k`);
      await client.quit();
    }
  });
});
