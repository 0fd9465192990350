import { ALL_SUITES, type CheckpointerHarness, registerSuite } from '@flow/checkpoint-conformance';
import { uniqueSchema } from '@flow/test-db';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { chunkCount, dropSchema, url } from './support/stores.js';

/** A PgBouncer in transaction-pooling mode (1.18: it does not track prepared statements) in front of `url`. */
const bouncer = inject('flowTestPgBouncerUrl');

const harness: CheckpointerHarness<PostgresCheckpointer> = {
  create: async () =>
    new PostgresCheckpointer(bouncer, { schema: uniqueSchema(), preparedStatements: false }),
  reopen: async (cp) => new PostgresCheckpointer(bouncer, { schema: cp.schema, preparedStatements: false }),
  reopenWith: async (cp, options) =>
    new PostgresCheckpointer(bouncer, { schema: cp.schema, preparedStatements: false, ...options }),
  // Through the bouncer, like the checkpointer: the server behind it need not be `url`'s.
  countChunks: (cp, thread) => chunkCount(cp.schema, thread, bouncer),
  openInChild: (cp) => ({
    module: new URL('../dist/index.js', import.meta.url),
    export: 'PostgresCheckpointer',
    args: [bouncer, { schema: cp.schema, preparedStatements: false }],
  }),
  // Dropped on the server directly: DDL does not need the bouncer.
  cleanup: (cp) => dropSchema(url, cp.schema),
};

describe('postgres through PgBouncer (transaction pooling, preparedStatements: false)', () => {
  for (const suite of ALL_SUITES) registerSuite(suite, harness as CheckpointerHarness);
});

describe('why PgBouncer in transaction mode needs preparedStatements: false', () => {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(url, schema);
  });

  /**
   * One client connection reads twice; between the reads another client holds the server connection the
   * first read ran on, so PgBouncer hands the second read another one.
   */
  async function readAcrossServerConnections(preparedStatements: boolean): Promise<unknown> {
    const schema = uniqueSchema();
    schemas.push(schema);
    await new PostgresCheckpointer(url, { schema }).put(checkpoint('t', 0)).then(undefined, () => undefined);
    const pool = new pg.Pool({ connectionString: bouncer, max: 1 });
    pool.on('error', () => {});
    const cp = new PostgresCheckpointer(pool, { schema, preparedStatements });
    const other = new pg.Client({ connectionString: bouncer });
    try {
      await cp.setup();
      await cp.get('t');
      await other.connect();
      await other.query('BEGIN');
      await other.query('SELECT 1');
      return await cp.get('t').then(
        (found) => found?.step,
        (error: unknown) => error,
      );
    } finally {
      await other.query('COMMIT').catch(() => {});
      await other.end().catch(() => {});
      await cp.close();
      await pool.end();
    }
  }

  it('named statements break: the second server connection never saw the statement', async () => {
    const outcome = await readAcrossServerConnections(true);
    expect(String((outcome as Error).message)).toMatch(/prepared statement .* does not exist/);
    // The error names the cure.
    expect(String((outcome as Error).message)).toContain(
      'PgBouncer, open the store with { preparedStatements: false }',
    );
  });

  it('unnamed statements work', async () => {
    expect(await readAcrossServerConnections(false)).toBe(0);
  });

  it('rejects a preparedStatements option that is not a boolean', () => {
    expect(() => new PostgresCheckpointer(url, { preparedStatements: 'no' as unknown as boolean })).toThrow(
      /preparedStatements option must be a boolean/,
    );
  });
});
