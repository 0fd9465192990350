import { Redis } from 'ioredis';
import pg from 'pg';
import { PROBE_TIMEOUT_MS } from './probe.js';

/** Quotes a SQL identifier, so any name (even a hostile one) is only ever a name. */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Escapes LIKE wildcards so `prefix` matches only itself. */
function escapeLike(prefix: string): string {
  return prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Escapes Redis glob characters so `prefix` matches only itself. */
function escapeGlob(prefix: string): string {
  return prefix.replace(/[\\*?[\]^-]/g, (c) => `\\${c}`);
}

async function withPgClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: PROBE_TIMEOUT_MS });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Drops a schema and everything in it; a schema that does not exist is fine.
 *
 * @example
 * afterAll(() => dropSchema(url, schema));
 */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await withPgClient(url, async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  });
}

/** Drops every schema whose name starts with `prefix`; resolves with how many were dropped. */
export async function dropSchemasStartingWith(url: string, prefix: string): Promise<number> {
  return withPgClient(url, async (client) => {
    const { rows } = await client.query<{ nspname: string }>(
      `SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 ESCAPE '\\'`,
      [`${escapeLike(prefix)}%`],
    );
    for (const { nspname } of rows)
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(nspname)} CASCADE`);
    return rows.length;
  });
}

/**
 * Deletes every Redis key that starts with `prefix` (SCAN + UNLINK, so the server is never blocked);
 * resolves with how many were deleted.
 *
 * @example
 * afterAll(() => deleteKeys(url, prefix));
 */
export async function deleteKeys(url: string, prefix: string): Promise<number> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  await client.connect();
  try {
    let cursor = '0';
    let deleted = 0;
    const pattern = `${escapeGlob(prefix)}*`;
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    client.disconnect();
  }
}
