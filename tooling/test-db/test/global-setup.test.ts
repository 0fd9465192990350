import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { RUN_ID_ENV } from '../src/index.js';

describe('the vitest global setups', () => {
  it('hand the resolved URLs to workers through inject and the environment', () => {
    expect(inject('flowTestPostgresUrl')).toMatch(/^postgres(ql)?:\/\//);
    expect(inject('flowTestRedisUrl')).toMatch(/^rediss?:\/\//);
    expect(process.env.FLOW_TEST_POSTGRES_URL).toBe(inject('flowTestPostgresUrl'));
    expect(process.env.FLOW_TEST_REDIS_URL).toBe(inject('flowTestRedisUrl'));
  });

  it('give the run a fresh id of letters and digits', () => {
    expect(process.env[RUN_ID_ENV]).toMatch(/^[a-z0-9]{8,20}$/);
  });

  it('hand over a Postgres URL that works', async () => {
    const client = new pg.Client(inject('flowTestPostgresUrl'));
    await client.connect();
    try {
      const { rows } = await client.query('SELECT 1 AS one');
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });
});
