import { Checkpoint, CheckpointConflict, jsonSerializer, SerializationError } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { countingPool } from './support/counting-pool.js';
import { freshSchemas, newPool } from './support/stores.js';

const freshSchema = freshSchemas();
const pools: { end(): Promise<void> }[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end();
});

/** A checkpointer on a fresh schema, through a pool that records every statement. */
async function grouped(options: { serializer?: typeof jsonSerializer } = {}) {
  const inner = newPool(4);
  const pool = countingPool(inner);
  pools.push(inner);
  const schema = freshSchema();
  const cp = new PostgresCheckpointer(pool, { schema, ...options });
  await cp.setup();
  pool.reset();
  return { cp, pool, schema };
}

const at = (thread: string, step = 0, state: unknown = { thread }) =>
  new Checkpoint({ thread, step, state, next: ['n'] });

/** The group statements among what was sent: those whose thread parameter is an array. */
const groupsIn = (sent: { values?: unknown[] }[]) => sent.filter((s) => Array.isArray(s.values?.[0]));

describe('group commit', () => {
  it('puts of many threads made at once go out as one statement, and all are stored', async () => {
    const { cp, pool } = await grouped();
    const threads = Array.from({ length: 40 }, (_, i) => `t${i}`);
    const stored = await Promise.all(threads.map((t) => cp.put(at(t))));
    expect(stored.map((c) => c.revision)).toEqual(threads.map(() => 1));
    expect(pool.sent.length).toBeLessThan(threads.length / 4);
    expect(groupsIn(pool.sent).length).toBeGreaterThan(0);
    for (const t of threads) expect((await cp.get(t))?.state).toEqual({ thread: t });
    expect((await cp.listThreads()).map((t) => t.thread).sort()).toEqual([...threads].sort());
  });

  it('a group of whole states put over linear steps stores them whole (upsert and at-revision alike)', async () => {
    const { cp, pool, schema } = await grouped();
    const log = (n: number) => ({ log: Array.from({ length: n }, (_, i) => `entry ${i} `.repeat(5)) });
    const threads = Array.from({ length: 12 }, (_, i) => `lin${i}`);
    for (const t of threads) {
      await cp.put(at(t, 0, log(60)));
      await cp.put(at(t, 1, log(61)));
    }
    const linear = await pool.query({
      text: `SELECT count(*)::integer AS n FROM ${quoteIdent(schema)}.checkpoints WHERE skeleton IS NOT NULL`,
    });
    expect(linear.rows).toEqual([{ n: threads.length }]);
    pool.reset();
    await Promise.all(
      threads.map((t, i) => cp.put(at(t, 1, { small: t }), i % 2 === 0 ? {} : { ifRevision: 1 })),
    );
    // Fewer statements than puts: the group's statement stored them (a failed group is sent again put by put).
    expect(groupsIn(pool.sent).length).toBeGreaterThan(0);
    expect(pool.sent.length).toBeLessThan(threads.length);
    for (const t of threads) expect((await cp.get(t, 1))?.state).toEqual({ small: t });
  });

  it('a conflicting conditional put fails alone; its group commits, and racing claims have one winner', async () => {
    const { cp, pool } = await grouped();
    await cp.put(at('x'));
    await cp.put(at('y'));
    pool.reset();
    const results = await Promise.allSettled([
      ...Array.from({ length: 10 }, (_, i) => cp.put(at(`ok${i}`), { ifRevision: 0 })),
      cp.put(at('x', 0, 'stale'), { ifRevision: 5 }),
      cp.put(at('y', 0, 'taken'), { ifRevision: 0 }),
      cp.put(at('x', 1, 'next'), { ifRevision: 0 }),
      cp.put(at('z', 0, 'first')),
      cp.put(at('y', 0, 'current'), { ifRevision: 1 }),
      cp.put(at('race', 0, 'a'), { ifRevision: 0 }),
      cp.put(at('race', 0, 'b'), { ifRevision: 0 }),
    ]);
    expect(groupsIn(pool.sent).length).toBeGreaterThan(0);
    const [x, y, xNext, z, yCurrent, raceA, raceB] = results.slice(10);
    for (const r of results.slice(0, 10)) expect(r.status).toBe('fulfilled');
    // y's claim conflicts with the stored step (revision 1, or 2 once y's other put, of another group, ran).
    for (const [r, actual] of [
      [x, [1]],
      [y, [1, 2]],
    ] as const) {
      expect(r?.status).toBe('rejected');
      const error = (r as PromiseRejectedResult).reason;
      expect(error).toBeInstanceOf(CheckpointConflict);
      expect(actual).toContain((error as CheckpointConflict).actual);
    }
    expect([xNext?.status, z?.status, yCurrent?.status]).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    expect((await cp.get('x', 0))?.state).toEqual({ thread: 'x' });
    expect((await cp.get('x', 1))?.state).toBe('next');
    expect((await cp.get('y', 0))?.revision).toBe(2);
    expect((await cp.get('y', 0))?.state).toBe('current');
    expect([raceA?.status, raceB?.status].sort()).toEqual(['fulfilled', 'rejected']);
    expect((await cp.get('race'))?.revision).toBe(1);
  });

  it('a put the database refuses fails alone; the others of its group are stored', async () => {
    // A serializer whose text for one state is not JSON: Postgres refuses it as JSONB inside the statement.
    const serializer = {
      serialize: (value: unknown, context: Parameters<typeof jsonSerializer.serialize>[1]) =>
        value === 'refused' ? 'not json' : jsonSerializer.serialize(value, context),
      deserialize: jsonSerializer.deserialize,
    };
    const { cp, pool } = await grouped({ serializer });
    const threads = Array.from({ length: 12 }, (_, i) => `g${i}`);
    const results = await Promise.allSettled(
      threads.map((t, i) => cp.put(at(t, 0, i === 5 ? 'refused' : t))),
    );
    expect(groupsIn(pool.sent).length).toBeGreaterThan(0);
    for (const [i, r] of results.entries()) {
      if (i === 5) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(SerializationError);
      else expect(r.status, threads[i]).toBe('fulfilled');
    }
    expect(await cp.get('g5')).toBeUndefined();
    for (const [i, t] of threads.entries()) if (i !== 5) expect((await cp.get(t))?.state).toBe(t);
  });

  it('no put resolves before its group is committed: another connection sees each one as it resolves', async () => {
    const { cp, schema } = await grouped();
    const other = newPool(1);
    pools.push(other);
    const threads = Array.from({ length: 24 }, (_, i) => `d${i}`);
    const seen = await Promise.all(
      threads.map(async (t) => {
        await cp.put(at(t));
        const { rows } = await other.query(
          `SELECT revision FROM ${quoteIdent(schema)}.checkpoints WHERE thread = $1`,
          [t],
        );
        return rows.length;
      }),
    );
    expect(seen).toEqual(threads.map(() => 1));
  });

  it('puts with writes go alone, next to a group, and keep their writes', async () => {
    const { cp } = await grouped();
    const results = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => cp.put(at(`p${i}`))),
      cp.put(at('w'), { writes: [{ node: 'a', key: 'k', value: 1 }] }),
    ]);
    expect(results.map((c) => c.revision)).toEqual(results.map(() => 1));
    expect(await cp.getWrites('w', 0)).toEqual([{ node: 'a', key: 'k', value: 1 }]);
  });
});
