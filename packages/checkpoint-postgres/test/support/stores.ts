import { dropSchema, uniqueSchema } from '@flow/test-db';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { PostgresCheckpointer } from '../../src/index.js';

/** The server of this run, found by @flow/test-db's global setup. */
export const url = inject('flowTestPostgresUrl');

/** A pool with a listener for idle-connection errors, as every application should have. */
export function newPool(max = 4): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => {});
  return pool;
}

/** A checkpointer on a fresh schema of its own, from the URL (so it owns its pool). */
export function freshCheckpointer(schema = uniqueSchema()): PostgresCheckpointer {
  return new PostgresCheckpointer(url, { schema });
}

export { dropSchema, uniqueSchema };

/** How many chunks `schema` stores for `thread`, on a connection of its own. */
export async function chunkCount(schema: string, thread: string, at = url): Promise<number> {
  const client = new pg.Client({ connectionString: at });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::integer AS n FROM "${schema}".chunks WHERE thread = $1`,
      [thread],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/**
 * A source of fresh schema names for the calling file (or `describe` block), each dropped after its tests.
 * Call it at the top of the file: module state is shared between files here (`isolate: false`).
 */
export function freshSchemas(): () => string {
  const schemas: string[] = [];
  afterAll(async () => {
    for (const schema of schemas) await dropSchema(url, schema);
  });
  return () => {
    const schema = uniqueSchema();
    schemas.push(schema);
    return schema;
  };
}
