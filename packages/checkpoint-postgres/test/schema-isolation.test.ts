import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const lower = uniqueSchema();
// The same name with a capital first letter: a distinct schema, because names are always quoted.
const upper = `F${lower.slice(1)}`;
const a = new PostgresCheckpointer(url, { schema: lower });
const b = new PostgresCheckpointer(url, { schema: upper });

afterAll(async () => {
  await a.close();
  await b.close();
  await dropSchema(url, lower);
  await dropSchema(url, upper);
});

describe('schemas', () => {
  it('default to "flow"', async () => {
    const cp = new PostgresCheckpointer(url);
    expect(cp.schema).toBe('flow');
    await cp.close();
  });

  it('are isolated, case-sensitively: the same thread ids in "Flow…" and "flow…" never meet', async () => {
    expect(upper.toLowerCase()).toBe(lower);
    for (const step of [0, 1, 2]) {
      await a.put(checkpoint('t', step, { state: `lower ${step}` }));
      await b.put(checkpoint('t', step, { state: `upper ${step}`, interrupted: step === 2 }));
    }
    await b.put(checkpoint('only-upper', 0));
    await b.put(checkpoint('t', 1, { state: 'upper 1 again' }));

    expect((await a.get('t'))?.state).toBe('lower 2');
    expect((await b.get('t'))?.state).toBe('upper 2');
    expect((await a.get('t', 1))?.revision).toBe(1);
    expect((await b.get('t', 1))?.revision).toBe(2);
    expect((await a.list('t')).map((c) => c.state)).toEqual(['lower 2', 'lower 1', 'lower 0']);
    expect((await a.listThreads()).map((i) => [i.thread, i.interrupted])).toEqual([['t', false]]);
    expect((await b.listThreads()).map((i) => [i.thread, i.interrupted])).toEqual([
      ['only-upper', false],
      ['t', true],
    ]);

    expect(await b.prune('t', { beforeStep: 2 })).toBe(2);
    expect(await a.list('t')).toHaveLength(3);
    expect(await a.deleteThread('t')).toBe(3);
    expect((await b.get('t'))?.state).toBe('upper 2');
    expect(await a.listThreads()).toEqual([]);
  });

  it('live side by side in the catalog under their exact names', async () => {
    const pool = newPool(1);
    try {
      const { rows } = await pool.query(
        'SELECT nspname FROM pg_namespace WHERE lower(nspname) = $1 ORDER BY nspname',
        [lower],
      );
      expect(rows.map((r) => r.nspname)).toEqual([upper, lower]);
    } finally {
      await pool.end();
    }
  });
});
