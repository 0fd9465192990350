import { isFlowError } from '@flow/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { url } from './support/stores.js';

function constructorError(schema: unknown): unknown {
  try {
    new PostgresCheckpointer(url, { schema: schema as string });
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the schema option', () => {
  const hostile = [
    'x"; drop table y; --',
    'flow"; DROP SCHEMA public CASCADE; --',
    "x'; select pg_sleep(10); --",
    'a b',
    'a-b',
    'a.b',
    'public.flow',
    '1abc',
    '',
    'x'.repeat(64),
    'flow\u0000',
    'é',
  ];
  for (const schema of hostile) {
    it(`rejects ${JSON.stringify(schema)} with InvalidArgumentError in the constructor`, () => {
      const error = constructorError(schema);
      expect(isFlowError(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
    });
  }

  it('rejects a name starting with pg_ (Postgres reserves them) up front, naming why', () => {
    for (const schema of ['pg_', 'pg_flow', 'pg_catalog']) {
      const error = constructorError(schema);
      expect(isFlowError(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
      expect((error as Error).message).toContain('starts with pg_, which Postgres reserves');
    }
  });

  it('accepts PG_ and Pg_, which Postgres allows as quoted names, and stores in them', async () => {
    for (const schema of [`PG_flow_${process.pid}`, `Pg_flow_${process.pid}`]) {
      const cp = new PostgresCheckpointer(url, { schema });
      try {
        await cp.put(checkpoint('t', 0));
        expect((await cp.get('t'))?.step).toBe(0);
      } finally {
        await cp.close();
        const admin = new pg.Client(url);
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await admin.end();
      }
    }
  });

  it('rejects a schema that is not a string', () => {
    for (const schema of [42, null, {}, ['flow']]) {
      expect(isFlowError(constructorError(schema), 'INVALID_ARGUMENT')).toBe(true);
    }
  });

  it('accepts names at the edges of the pattern', () => {
    for (const schema of ['_', 'A', 'x'.repeat(63), 'Flow_2', '_0']) {
      expect(constructorError(schema)).toBeUndefined();
    }
  });

  it('rejects an empty URL and a value that is neither URL nor pool', () => {
    for (const target of ['', '   ', 42, null, {}, { query() {} }]) {
      let error: unknown;
      try {
        new PostgresCheckpointer(target as string);
      } catch (e) {
        error = e;
      }
      expect(isFlowError(error, 'INVALID_ARGUMENT'), String(target)).toBe(true);
    }
  });
});
