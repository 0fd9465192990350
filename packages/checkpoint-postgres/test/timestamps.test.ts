import { InvalidArgumentError } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { toPgTimestamp } from '../src/timestamp.js';
import { checkpoint } from './support/checkpoints.js';
import { countingPool } from './support/counting-pool.js';
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

  it('before 4713 BC (outside Postgres) is refused up front with InvalidArgumentError: nothing is sent, nothing written', async () => {
    const inner = newPool(1);
    const pool = countingPool(inner);
    const counted = new PostgresCheckpointer(pool, { schema });
    try {
      await counted.setup();
      for (const [step, ts] of [
        '-004713-11-23T23:59:59.999Z', // a millisecond before the earliest
        '-004714-01-01T00:00:00.000Z',
        '-271821-04-20T00:00:00.000Z', // the earliest a JS Date holds
      ].entries()) {
        pool.reset();
        const error = await counted.put(checkpoint('ancient', step, { ts })).catch((e: unknown) => e);
        expect(error, ts).toBeInstanceOf(InvalidArgumentError);
        expect((error as Error).message, ts).toBe(
          `[flow:postgres] ts ${ts} of thread "ancient" step ${step} is before 4713 BC: Postgres stores timestamps from 4713 BC (-004713-11-24T00:00:00.000Z) on, so this backend cannot store it`,
        );
        expect(pool.sent, ts).toEqual([]);
        // With writes too (another statement), and conditional.
        const withWrites = await counted
          .put(checkpoint('ancient', step, { ts }), {
            ifRevision: 0,
            writes: [{ node: 'n', key: 'k', value: 1 }],
          })
          .catch((e: unknown) => e);
        expect(withWrites, ts).toBeInstanceOf(InvalidArgumentError);
        expect(pool.sent, ts).toEqual([]);
      }
      expect(await counted.get('ancient')).toBeUndefined();
    } finally {
      await counted.close();
      await inner.end();
    }
  });

  it('an ancient ts refused in a group commit fails its own put only', async () => {
    const results = await Promise.allSettled([
      cp.put(checkpoint('grouped', 0, { ts: '2024-01-01T00:00:00.000Z' })),
      cp.put(checkpoint('grouped-ancient', 0, { ts: '-010000-01-01T00:00:00.000Z' })),
      cp.put(checkpoint('grouped', 1, { ts: '2024-01-02T00:00:00.000Z' })),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidArgumentError);
    expect((await cp.list('grouped')).map((c) => c.ts)).toEqual([
      '2024-01-02T00:00:00.000Z',
      '2024-01-01T00:00:00.000Z',
    ]);
  });

  it('prune olderThan before 4713 BC removes nothing, as nothing stored is older', async () => {
    await cp.put(checkpoint('earliest', 0, { ts: '-004713-11-24T00:00:00.000Z' }));
    await cp.put(checkpoint('earliest', 1));
    expect(await cp.prune('earliest', { olderThan: '-010000-01-01T00:00:00.000Z' })).toBe(0);
    expect(await cp.prune('earliest', { olderThan: '-004713-11-24T00:00:00.001Z' })).toBe(1);
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
