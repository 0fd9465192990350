import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { toPgTimestamp } from '../src/timestamp.js';
import { checkpoint } from './support/checkpoints.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const schema = uniqueSchema();
const cp = new PostgresCheckpointer(url, { schema });
afterAll(async () => {
  await cp.close();
  await dropSchema(url, schema);
});

describe('toPgTimestamp', () => {
  it('passes years 0001–9999 through and rewrites the signed forms Postgres cannot read', () => {
    expect(toPgTimestamp('2024-02-29T12:34:56.789Z')).toBe('2024-02-29T12:34:56.789Z');
    expect(toPgTimestamp('0001-01-01T00:00:00.000Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(toPgTimestamp('+010000-01-01T00:00:00.000Z')).toBe('10000-01-01T00:00:00.000Z');
    expect(toPgTimestamp('0000-06-01T00:00:00.000Z')).toBe('0001-06-01T00:00:00.000Z BC');
    expect(toPgTimestamp('-000001-06-01T00:00:00.000Z')).toBe('0002-06-01T00:00:00.000Z BC');
  });
});

describe('ts', () => {
  const instants = [
    '2024-02-29T12:34:56.789Z',
    '1970-01-01T00:00:00.000Z',
    '1969-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.999Z',
    '+010000-01-01T00:00:00.001Z',
    '+275760-09-13T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    '-004713-11-24T00:00:00.000Z',
  ];

  it('round-trips to the millisecond, from 4714 BC to the last instant a JS Date holds', async () => {
    for (const [step, ts] of instants.entries()) {
      const stored = await cp.put(checkpoint('ts', step, { ts }));
      expect(stored.ts).toBe(ts);
      expect((await cp.get('ts', step))?.ts, ts).toBe(ts);
    }
    expect((await cp.listThreads())[0]?.ts).toBe(instants.at(-1));
  });

  it('is stored as that instant: SQL sees the same time', async () => {
    await cp.put(checkpoint('sql', 0, { ts: '2024-02-29T12:34:56.789Z' }));
    const pool = newPool(1);
    const { rows } = await pool.query(
      `SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS t FROM "${schema}".checkpoints WHERE thread = 'sql'`,
    );
    await pool.end();
    expect(rows[0].t).toBe('2024-02-29 12:34:56.789000');
  });

  it('before 4714 BC (outside Postgres) rejects with StorageError and writes nothing', async () => {
    const error = await cp
      .put(checkpoint('ancient', 0, { ts: '-004714-01-01T00:00:00.000Z' }))
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'STORAGE' });
    expect(await cp.get('ancient')).toBeUndefined();
  });

  it('prune olderThan compares instants, also across the signed years', async () => {
    await cp.put(checkpoint('old', 0, { ts: '-000001-01-01T00:00:00.000Z' }));
    await cp.put(checkpoint('old', 1, { ts: '+010000-01-01T00:00:00.000Z' }));
    await cp.put(checkpoint('old', 2, { ts: '+010001-01-01T00:00:00.000Z' }));
    expect(await cp.prune('old', { olderThan: '0001-01-01T00:00:00.000Z' })).toBe(1);
    expect(await cp.prune('old', { olderThan: new Date('+010000-06-01T00:00:00.000Z') })).toBe(1);
    expect((await cp.list('old')).map((c) => c.step)).toEqual([2]);
  });
});
