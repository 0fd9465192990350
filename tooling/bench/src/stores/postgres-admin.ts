import pg from 'pg';
import type { Counters } from './counters.js';
import { countPool } from './counters.js';

/** A pool for one store under test, its statements counted. Idle-connection errors are the pool's to retry. */
export function countedPool(url: string, max: number, counters: Counters): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', () => {});
  countPool(pool, counters);
  return pool;
}

/** Runs one statement on a connection of its own, outside the counted pools. */
export async function adminQuery<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Bytes of every table in `schema`, with its indexes and TOAST (`pg_total_relation_size`). */
export async function schemaBytes(url: string, schema: string): Promise<number> {
  const rows = await adminQuery<{ bytes: string }>(
    url,
    `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::text AS bytes
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = 'r'`,
    [schema],
  );
  return Number(rows[0]?.bytes ?? 0);
}

/** Quotes an identifier for SQL. */
export function ident(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
