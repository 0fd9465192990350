import { isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();

async function schemaExists(schema: string): Promise<boolean> {
  const pool = newPool(1);
  try {
    const { rows } = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
    return rows.length === 1;
  } finally {
    await pool.end();
  }
}

describe('create: false', () => {
  it('creates nothing where there is no store: exists() is false and every call rejects', async () => {
    const schema = freshSchema();
    const cp = new PostgresCheckpointer(url, { schema, create: false });
    expect(await cp.exists()).toBe(false);
    const failure = await cp.listThreads().catch((error: unknown) => error);
    expect(isFlowError(failure, 'STORAGE')).toBe(true);
    expect((failure as Error).message).toContain(`no store in schema "${schema}"`);
    await expect(cp.put(checkpoint('t', 0))).rejects.toThrow(/no store in schema/);
    await cp.close();
    expect(await schemaExists(schema)).toBe(false);
  });

  it('opens a store that exists', async () => {
    const schema = freshSchema();
    const writer = new PostgresCheckpointer(url, { schema });
    await writer.put(checkpoint('t', 0));
    await writer.close();
    const reader = new PostgresCheckpointer(url, { schema, create: false });
    expect(await reader.exists()).toBe(true);
    expect((await reader.listThreads()).map((t) => t.thread)).toEqual(['t']);
    await reader.close();
  });

  it('exists() is false for an empty schema someone else created', async () => {
    const schema = freshSchema();
    const pool = newPool(1);
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.end();
    const cp = new PostgresCheckpointer(url, { schema, create: false });
    expect(await cp.exists()).toBe(false);
    await cp.close();
  });

  it('exists() on an unreachable server rejects with StorageError', async () => {
    const cp = new PostgresCheckpointer('postgres://postgres@127.0.0.1:1/postgres', { queryTimeout: 2000 });
    const failure = await cp.exists().catch((error: unknown) => error);
    expect(isFlowError(failure, 'STORAGE')).toBe(true);
    await cp.close();
  });

  it('rejects a create option that is not a boolean', () => {
    expect(() => new PostgresCheckpointer(url, { create: 0 as unknown as boolean })).toThrow(/boolean/);
  });
});
