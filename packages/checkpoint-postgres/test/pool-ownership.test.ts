import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const schemas = [uniqueSchema(), uniqueSchema()];
afterAll(async () => {
  for (const schema of schemas) await dropSchema(url, schema);
});

/** Connections the server has open with this application_name. */
async function connectionsNamed(name: string): Promise<number> {
  const admin = new pg.Client(url);
  await admin.connect();
  try {
    const { rows } = await admin.query(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1',
      [name],
    );
    return rows[0].n;
  } finally {
    await admin.end();
  }
}

describe('pool ownership', () => {
  it('a pool passed in is not ended by close()', async () => {
    const pool = newPool(2);
    const cp = new PostgresCheckpointer(pool, { schema: schemas[0] });
    await cp.put(checkpoint('t', 0));
    await cp.close();
    expect(pool.ended).toBe(false);
    const { rows } = await pool.query('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
    await expect(cp.get('t')).rejects.toMatchObject({ code: 'STORAGE' });
    await pool.end();
  });

  it('a pool made from a URL is ended by close(): its connections are gone', async () => {
    const name = `flow_owned_${randomBytes(4).toString('hex')}`;
    const owned = new URL(url);
    owned.searchParams.set('application_name', name);
    const cp = new PostgresCheckpointer(owned.toString(), { schema: schemas[0] });
    await Promise.all([cp.put(checkpoint('u', 0)), cp.get('u'), cp.list('u')]);
    expect(await connectionsNamed(name)).toBeGreaterThan(0);
    await cp.close();
    // The server lists a backend until it has noticed the client's goodbye: a moment after close() resolves.
    // Within 5 s, under pg's 10 s idle timeout, so a pool left open would still keep them and fail this.
    await expect.poll(() => connectionsNamed(name), { timeout: 5000, interval: 50 }).toBe(0);
  });

  it('one pool serves checkpointers of several schemas, each with its own prepared statements', async () => {
    const pool = newPool(1);
    const [x, y] = schemas.map((schema) => new PostgresCheckpointer(pool, { schema }));
    await x!.put(checkpoint('same', 0, { state: 'x' }));
    await y!.put(checkpoint('same', 0, { state: 'y' }));
    expect((await x!.get('same'))?.state).toBe('x');
    expect((await y!.get('same'))?.state).toBe('y');
    await x!.close();
    await y!.close();
    await pool.end();
  });
});
