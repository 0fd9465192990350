import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { deleteKeys, dropSchema, dropSchemasStartingWith, uniquePrefix, uniqueSchema } from '../src/index.js';

async function schemasLike(client: pg.Client, start: string): Promise<string[]> {
  const { rows } = await client.query<{ nspname: string }>(
    'SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1) ORDER BY nspname',
    [start],
  );
  return rows.map((r) => r.nspname);
}

describe('dropSchema and dropSchemasStartingWith', () => {
  const url = inject('flowTestPostgresUrl');
  const client = new pg.Client(url);
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  it('drops a schema with its tables, and accepts one that does not exist', async () => {
    const schema = uniqueSchema();
    await client.query(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".t (x int)`);
    await dropSchema(url, schema);
    expect(await schemasLike(client, schema)).toEqual([]);
    await expect(dropSchema(url, schema)).resolves.toBeUndefined();
  });

  it('quotes the name, so a hostile one drops nothing else', async () => {
    const victim = uniqueSchema();
    await client.query(`CREATE SCHEMA "${victim}"`);
    await dropSchema(url, `${victim}"; DROP SCHEMA "${victim}" CASCADE; --`);
    expect(await schemasLike(client, victim)).toEqual([victim]);
    await dropSchema(url, victim);
  });

  it('drops exactly the schemas that start with a prefix, wildcards taken literally', async () => {
    const base = uniqueSchema();
    const names = [`${base}_a`, `${base}_b`];
    const bystander = `${base.slice(0, -1)}x`;
    for (const n of [...names, bystander]) await client.query(`CREATE SCHEMA "${n}"`);
    try {
      // `_` is a LIKE wildcard: unescaped, `${base}` with its last char as `_` would match the bystander too.
      expect(await dropSchemasStartingWith(url, `${base}_`)).toBe(2);
      expect(await schemasLike(client, base)).toEqual([]);
      expect(await schemasLike(client, bystander)).toEqual([bystander]);
    } finally {
      await dropSchema(url, bystander);
    }
  });
});

describe('deleteKeys', () => {
  const url = inject('flowTestRedisUrl');
  const client = new Redis(url);
  afterAll(() => client.quit());

  it('deletes every key under the prefix and nothing else', async () => {
    const prefix = uniquePrefix();
    const other = uniquePrefix();
    for (let i = 0; i < 1500; i++) client.set(`${prefix}:k${i}`, '1');
    await client.set(`${other}:k`, '1');
    expect(await deleteKeys(url, prefix)).toBe(1500);
    expect(await client.keys(`${prefix}*`)).toEqual([]);
    expect(await client.get(`${other}:k`)).toBe('1');
    await deleteKeys(url, other);
  });

  it('takes glob characters in the prefix literally', async () => {
    const prefix = uniquePrefix();
    await client.set(`${prefix}:a`, '1');
    await client.set(`${prefix}*:b`, '1');
    expect(await deleteKeys(url, `${prefix}*`)).toBe(1);
    expect(await client.get(`${prefix}:a`)).toBe('1');
    await deleteKeys(url, prefix);
  });
});
