import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { buildStatements } from '../src/statements.js';
import { checkpoint } from './support/checkpoints.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

const schema = uniqueSchema();
const cp = new PostgresCheckpointer(url, { schema });
const admin = newPool(1);

beforeAll(() => cp.setup());
afterAll(async () => {
  await cp.close();
  await admin.end();
  await dropSchema(url, schema);
});

async function column(table: string, name: string) {
  const { rows } = await admin.query(
    `SELECT data_type, collation_name FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = $2 AND column_name = $3`,
    [schema, table, name],
  );
  return rows[0];
}

describe('the schema', () => {
  it('stores state as JSONB, ts as TIMESTAMPTZ, thread ids in the "C" collation', async () => {
    expect(await column('checkpoints', 'state')).toMatchObject({ data_type: 'jsonb' });
    expect(await column('checkpoints', 'interrupt_payload')).toMatchObject({ data_type: 'jsonb' });
    expect(await column('checkpoints', 'ts')).toMatchObject({ data_type: 'timestamp with time zone' });
    expect(await column('checkpoints', 'thread')).toMatchObject({ collation_name: 'C' });
    expect(await column('threads', 'thread')).toMatchObject({ collation_name: 'C' });
  });

  it('keeps error and meta as text, which a run error holding U+0000 needs (JSONB refuses it)', async () => {
    for (const [table, name] of [
      ['checkpoints', 'error'],
      ['checkpoints', 'meta'],
      ['threads', 'error'],
    ] as const) {
      expect(await column(table, name), `${table}.${name}`).toMatchObject({ data_type: 'text' });
    }
  });

  it('keeps chunks as text per (thread, id), thread and id in the "C" collation; refs as one text', async () => {
    expect(await column('chunks', 'data')).toMatchObject({ data_type: 'text' });
    expect(await column('chunks', 'thread')).toMatchObject({ collation_name: 'C' });
    expect(await column('chunks', 'id')).toMatchObject({ collation_name: 'C' });
    expect(await column('checkpoints', 'refs')).toMatchObject({ data_type: 'text' });
    const { rows } = await admin.query(
      `SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
       WHERE conrelid = to_regclass($1) AND contype = 'p'`,
      [`"${schema}".chunks`],
    );
    expect(rows).toEqual([{ def: 'PRIMARY KEY (thread, id)' }]);
  });

  it('keeps a linear state as its skeleton in text with state NULL, and every put over a step sets one of the two', async () => {
    const log = (n: number) => ({ log: Array.from({ length: n }, (_, i) => `entry ${i} `.repeat(5)) });
    const row = async () => {
      const { rows } = await admin.query(
        `SELECT state, skeleton, revision::integer AS revision FROM "${schema}".checkpoints
         WHERE thread = 'skeleton' AND step = 1`,
      );
      return rows[0] as { state: unknown; skeleton: string | null; revision: number };
    };
    const expectStored = async (state: unknown, revision: number, linear: boolean) => {
      const stored = await row();
      expect([stored.revision, stored.state === null, typeof stored.skeleton]).toEqual([
        revision,
        linear,
        linear ? 'string' : 'object',
      ]);
      if (linear) expect(stored.skeleton).toMatch(/^\[1,\d+,/);
      else expect(stored.state).toEqual(state);
      expect((await cp.get('skeleton', 1))?.state).toEqual(state);
    };
    await cp.put(checkpoint('skeleton', 0, { state: log(60) }));
    // Linear: an insert, an update at a revision, then (over a whole state) an upsert.
    await cp.put(checkpoint('skeleton', 1, { state: log(61) }));
    await expectStored(log(61), 1, true);
    await cp.put(checkpoint('skeleton', 1, { state: log(62) }), { ifRevision: 1 });
    await expectStored(log(62), 2, true);
    await cp.put(checkpoint('skeleton', 1, { state: { small: true } }), { ifRevision: 2 });
    await expectStored({ small: true }, 3, false);
    await cp.put(checkpoint('skeleton', 1, { state: log(63) }));
    await expectStored(log(63), 4, true);
    await cp.put(checkpoint('skeleton', 1, { state: { small: 'again' } }));
    await expectStored({ small: 'again' }, 5, false);
  });

  it('has a partial index on interrupted threads, which the interrupted listing uses', async () => {
    const { rows } = await admin.query(
      'SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2',
      [schema, 'threads_interrupted_idx'],
    );
    expect(rows[0]?.indexdef).toMatch(/WHERE interrupted$/);
    const client = await admin.connect();
    try {
      await client.query('BEGIN');
      await client.query('SET LOCAL enable_seqscan = off');
      const text = buildStatements(schema).listThreads.interrupted.text;
      await client.query(`PREPARE q(text, bigint) AS ${text}`);
      await client.query('SET LOCAL plan_cache_mode = force_generic_plan');
      const plan = await client.query("EXPLAIN EXECUTE q('', 10)");
      const lines = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
      expect(lines).toContain('threads_interrupted_idx');
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE ALL');
    } finally {
      client.release();
    }
  });

  it('listThreads reads only the summary table, never the checkpoints and their state', () => {
    for (const statement of Object.values(buildStatements(schema).listThreads)) {
      expect(statement.text).toContain(`"${schema}".threads`);
      expect(statement.text).not.toContain('checkpoints');
    }
  });

  it('keeps state queryable with SQL: it is real JSONB, not an opaque string', async () => {
    await cp.put(checkpoint('order-42', 0, { state: { customer: { name: 'Ada' }, total: 12.5 } }));
    const { rows } = await admin.query(
      `SELECT state #>> '{customer,name}' AS name, (state->>'total')::numeric AS total
       FROM "${schema}".checkpoints WHERE thread = 'order-42'`,
    );
    expect(rows).toEqual([{ name: 'Ada', total: '12.5' }]);
  });

  it('has no CHECK constraint on any table, so no write prepares one (version 8)', async () => {
    // Postgres plans a table's CHECK expressions again in every statement that writes to it; the values they
    // guarded are the statements' own (the test above shows every put sets exactly one of state and skeleton).
    const { rows } = await admin.query(
      `SELECT conrelid::regclass::text AS "table", conname FROM pg_constraint
       WHERE connamespace = to_regnamespace($1) AND contype = 'c'`,
      [`"${schema}"`],
    );
    expect(rows).toEqual([]);
  });

  it('records the applied migrations', async () => {
    const { rows } = await admin.query(`SELECT version, name FROM "${schema}".migrations`);
    expect(rows).toEqual([
      { version: 1, name: 'checkpoints and thread summaries' },
      { version: 2, name: 'failed runs, meta, per-step writes and leases' },
      { version: 3, name: 'error and meta as text' },
      { version: 4, name: 'thread summaries as one text' },
      { version: 5, name: 'chunks of linear state' },
      { version: 6, name: 'refs as one text' },
      { version: 7, name: 'linear skeletons as text' },
      { version: 8, name: 'no CHECK constraints on written rows' },
    ]);
  });
});

describe('the summary is written in the same transaction as the checkpoint', () => {
  it('a put the database rejects leaves neither a checkpoint nor a summary', async () => {
    // A custom serializer whose text is not JSON: the JSONB cast fails inside the put's statement.
    const broken = new PostgresCheckpointer(url, {
      schema,
      serializer: { serialize: () => 'not json', deserialize: (t) => t },
    });
    const error = await broken.put(checkpoint('broken', 0)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SERIALIZATION' });
    expect((error as Error).cause).toMatchObject({ code: '22P02' });
    await broken.close();
    expect(await cp.get('broken')).toBeUndefined();
    expect((await cp.listThreads()).map((t) => t.thread)).not.toContain('broken');
  });

  it('a string with a lone surrogate round-trips (the default serializer tags it for JSONB)', async () => {
    const states = [{ cut: '😀'.slice(0, 1) }, ['\udc00']];
    for (const [i, state] of states.entries()) await cp.put(checkpoint('lone', i, { state }));
    expect((await cp.list('lone')).map((c) => c.state)).toEqual([...states].reverse());
  });

  it('a serializer emitting a raw lone-surrogate escape (JSONB refuses it) is a SerializationError; nothing is written', async () => {
    await cp.put(checkpoint('lone-raw', 0, { state: 'kept' }));
    const raw = new PostgresCheckpointer(url, {
      schema,
      serializer: { serialize: (v) => JSON.stringify(v), deserialize: (t) => JSON.parse(t) },
    });
    const error = await raw
      .put(checkpoint('lone-raw', 0, { state: { cut: '😀'.slice(0, 1) } }))
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'SERIALIZATION',
      message: expect.stringContaining('thread "lone-raw" step 0'),
    });
    await raw.close();
    expect(await cp.list('lone-raw')).toMatchObject([{ state: 'kept', revision: 1 }]);
  });

  it('summary rows match the checkpoints after a burst of puts, prunes and deletes', async () => {
    const ops: Array<Promise<unknown>> = [];
    for (let i = 0; i < 40; i++) {
      const thread = `burst-${i % 4}`;
      ops.push(
        cp.put(checkpoint(thread, i % 7, { next: i % 3 === 0 ? [] : ['n'], interrupted: i % 5 === 0 })),
      );
      if (i % 9 === 0) ops.push(cp.prune(thread, { beforeStep: 3 }));
      if (i % 13 === 0) ops.push(cp.deleteThread(thread));
    }
    await Promise.all(ops);
    const { rows } = await admin.query(
      `SELECT c.thread, c.step, c.interrupted, c.next, c.error, t.thread AS summary,
              t.latest_step, t.interrupted AS t_interrupted, t.next AS t_next, t.error AS t_error
       FROM (SELECT DISTINCT ON (thread) * FROM "${schema}".checkpoints WHERE thread LIKE 'burst-%'
             ORDER BY thread, step DESC) c
       FULL JOIN (SELECT * FROM "${schema}".threads WHERE thread LIKE 'burst-%') t ON t.thread = c.thread`,
    );
    for (const row of rows) {
      expect(row.summary, JSON.stringify(row)).toBe(row.thread);
      expect(row.latest_step).toBe(row.step);
      expect(row.t_interrupted).toBe(row.interrupted);
      expect(row.t_next).toEqual(row.next);
      expect(row.t_error).toEqual(row.error);
    }
  });
});
