import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { countingPool } from './support/counting-pool.js';
import { chunkCount, dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const schema = uniqueSchema();
// One connection, so the prepared statements seen by the server are all this checkpointer's.
const inner = newPool(1);
const pool = countingPool(inner);
const cp = new PostgresCheckpointer(pool, { schema });

beforeAll(async () => {
  await cp.setup();
  await cp.put(checkpoint('t', 0));
  await cp.put(checkpoint('t', 1));
});
beforeEach(() => pool.reset());
afterAll(async () => {
  await cp.close();
  await inner.end();
  await dropSchema(url, schema);
});

/** Statements sent by `call`, each checked to be a named prepared statement. */
async function statementsOf(call: () => Promise<unknown>): Promise<number> {
  pool.reset();
  await call();
  for (const sent of pool.sent) expect(sent.name, sent.text).toMatch(/^flow_pg_[0-9a-f]{24}$/);
  return pool.sent.length;
}

describe('round trips', () => {
  it('a put is one statement: unconditional, ifRevision 0 and ifRevision n', async () => {
    expect(await statementsOf(() => cp.put(checkpoint('t', 2)))).toBe(1);
    expect(await statementsOf(() => cp.put(checkpoint('t', 2)))).toBe(1);
    expect(await statementsOf(() => cp.put(checkpoint('t', 3), { ifRevision: 0 }))).toBe(1);
    expect(await statementsOf(() => cp.put(checkpoint('t', 3), { ifRevision: 1 }))).toBe(1);
    expect(await statementsOf(() => cp.put(checkpoint('fresh', 0)))).toBe(1);
  });

  it('a put with writes is one statement too, in all three forms; so are putWrites and getWrites', async () => {
    const writes = [1, 2, 3].map((n) => ({ node: `n${n}`, key: 'k', value: { n } }));
    expect(await statementsOf(() => cp.put(checkpoint('w', 0), { writes }))).toBe(1);
    expect(await statementsOf(() => cp.put(checkpoint('w', 1), { ifRevision: 0, writes }))).toBe(1);
    expect(await statementsOf(() => cp.put(checkpoint('w', 1), { ifRevision: 1, writes }))).toBe(1);
    expect(await statementsOf(() => cp.putWrites('w', 2, writes))).toBe(1);
    expect(await statementsOf(() => cp.getWrites('w', 2))).toBe(1);
    expect(await cp.getWrites('w', 1)).toEqual(writes);
  });

  it('lease calls are one statement each; a refused acquire costs one more, to name the holder', async () => {
    expect(await statementsOf(() => cp.acquireLease('l', { owner: 'a', ttlMs: 60_000 }))).toBe(1);
    expect(await statementsOf(() => cp.acquireLease('l', { owner: 'a', ttlMs: 60_000 }))).toBe(1);
    expect(await statementsOf(() => cp.renewLease('l', { owner: 'a', ttlMs: 60_000 }))).toBe(1);
    expect(await statementsOf(() => cp.getLease('l'))).toBe(1);
    expect(await statementsOf(() => cp.acquireLease('l', { owner: 'b', ttlMs: 60_000 }))).toBe(2);
    expect(await statementsOf(() => cp.releaseLease('l', 'a'))).toBe(1);
  });

  it('a conflicting put costs one more statement, to read the actual revision', async () => {
    expect(
      await statementsOf(() => cp.put(checkpoint('t', 0), { ifRevision: 7 }).catch((e: unknown) => e)),
    ).toBe(2);
    expect(
      await statementsOf(() => cp.put(checkpoint('t', 0), { ifRevision: 0 }).catch((e: unknown) => e)),
    ).toBe(2);
  });

  it('get, list and listThreads are one statement each', async () => {
    expect(await statementsOf(() => cp.get('t'))).toBe(1);
    expect(await statementsOf(() => cp.get('t', 1))).toBe(1);
    expect(await statementsOf(() => cp.get('absent'))).toBe(1);
    expect(await statementsOf(() => cp.get('t', 9))).toBe(1);
    expect(await statementsOf(() => cp.list('t', { beforeStep: 2, limit: 1 }))).toBe(1);
    expect(await statementsOf(() => cp.listThreads({ status: 'running', limit: 5 }))).toBe(1);
  });

  it('a get of a whole state reads the checkpoint alone: no chunk lookup in its statement', async () => {
    for (const [get, state] of [
      [() => cp.get('t', 1), { step: 1 }],
      [() => cp.get('t', 0), { step: 0 }],
      [() => cp.get('absent'), undefined],
    ] as const) {
      pool.reset();
      expect((await get())?.state).toEqual(state);
      expect(pool.sent.map((s) => s.text)).toEqual([expect.not.stringContaining('chunks')]);
    }
  });

  it('a get of a state stored in chunks is one statement, chunks included, once the instance has seen the thread linear; two before', async () => {
    // Large states sharing most parts: the second put is stored as a skeleton and chunks.
    const messages = Array.from({ length: 40 }, (_, i) => `message ${i} `.repeat(100));
    await cp.put(checkpoint('big', 0, { state: { messages } }));
    const state = { messages: [...messages, 'one more'] };
    await cp.put(checkpoint('big', 1, { state }));
    expect(await chunkCount(schema, 'big')).toBeGreaterThan(0);
    const fresh = new PostgresCheckpointer(pool, { schema });
    try {
      await fresh.setup();
      // The writer knows its thread is linear; a new instance reads the checkpoint's row alone first, finds
      // refs, and reads it again with its chunks; from then on it knows too.
      expect(await statementsOf(() => cp.get('big'))).toBe(1);
      expect(await statementsOf(() => fresh.get('big', 1))).toBe(2);
      expect(await statementsOf(() => fresh.get('big'))).toBe(1);
      expect(await statementsOf(() => fresh.get('big', 0))).toBe(1);
      expect(await statementsOf(() => fresh.list('big'))).toBe(1);
      const [latest, first, listed] = [
        await fresh.get('big'),
        await fresh.get('big', 1),
        await fresh.list('big'),
      ];
      expect([latest?.state, first?.state, listed[0]?.state]).toEqual([state, state, state]);
      // A whole state written after them: the writer's gets read the row alone again; the instance that
      // still guesses linear reads it with the chunk lookup, which answers it in one statement all the same.
      await cp.put(checkpoint('big', 2));
      pool.reset();
      expect((await cp.get('big'))?.state).toEqual({ step: 2 });
      expect(pool.sent.map((s) => s.text)).toEqual([expect.not.stringContaining('chunks')]);
      expect(await statementsOf(() => fresh.get('big'))).toBe(1);
      expect((await fresh.get('big'))?.state).toEqual({ step: 2 });
      // Deleted: the thread's next record starts whole, and its get reads the row alone.
      await fresh.deleteThread('big');
      await fresh.put(checkpoint('big', 0));
      pool.reset();
      expect((await fresh.get('big'))?.state).toEqual({ step: 0 });
      expect(pool.sent.map((s) => s.text)).toEqual([expect.not.stringContaining('chunks')]);
    } finally {
      await fresh.close();
    }
  });

  it('prune is one transaction too, under the thread lock: BEGIN, lock, prune, COMMIT', async () => {
    pool.reset();
    expect(await cp.prune('t', { beforeStep: 1 })).toBe(1);
    expect(pool.sent.map((s) => s.text.split(' ')[0])).toEqual(['BEGIN', 'SELECT', 'WITH', 'COMMIT']);
  });

  it('deleteThread is one transaction: BEGIN, lock, delete, COMMIT', async () => {
    await cp.put(checkpoint('doomed', 0));
    pool.reset();
    expect(await cp.deleteThread('doomed')).toBe(1);
    expect(pool.sent.map((s) => s.text.split(' ')[0])).toEqual(['BEGIN', 'SELECT', 'WITH', 'COMMIT']);
  });

  it('the server holds the statements prepared, once per connection', async () => {
    await cp.put(checkpoint('t', 4));
    await cp.put(checkpoint('t', 5));
    await cp.get('t');
    const { rows } = await inner.query<{ name: string; calls: string }>(
      "SELECT name FROM pg_prepared_statements WHERE name LIKE 'flow_pg_%'",
    );
    const names = rows.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    const putName = pool.sent.find((s) => s.text.includes('INSERT INTO'))?.name;
    expect(names).toContain(putName);
  });
});
