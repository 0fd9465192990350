import { flowPrefix, StorageError } from '@flow/core';
import type { PgPool, PgPoolClient, PgQueryable } from './driver.js';
import { LATEST_VERSION, MIGRATIONS } from './migrations.js';
import { quoteIdent } from './quote.js';

/** First key of the two-key advisory lock ('flow' in ASCII); the second is the hash of the schema name. */
const LOCK_NAMESPACE = 0x666c6f77;

/** A schema migrated by a newer release: refusing beats writing rows that release cannot read. */
function tooNew(s: string, version: number): Error {
  return new Error(
    `schema ${s} is at version ${version}, newer than this @flow/checkpoint-postgres knows ` +
      `(${LATEST_VERSION}); upgrade the package`,
  );
}

/**
 * The recorded version, or 0. Runs on a checked-out client: an error here ("no such table") must not make the
 * pool discard the connection, which the migration then reuses.
 */
async function currentVersion(client: PgPoolClient, s: string): Promise<number> {
  try {
    const { rows } = await client.query<{ version: number | null }>({
      text: `SELECT max(version) AS version FROM ${s}.schema_migrations`,
    });
    return rows[0]?.version ?? 0;
  } catch {
    // No schema or no table yet (or the server is away): the locked path creates it or reports the error.
    return 0;
  }
}

async function migrateLocked(client: PgPoolClient, schema: string, s: string): Promise<void> {
  // Serialises every setup() of this schema, across processes; taken before anything is created, so
  // CREATE SCHEMA cannot race either. Released by COMMIT or ROLLBACK.
  await client.query({
    text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))',
    values: [LOCK_NAMESPACE, schema],
  });
  const { rows } = await client.query<{ has_schema: boolean; has_table: boolean }>({
    text: `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS has_schema,
                  to_regclass($2) IS NOT NULL AS has_table`,
    values: [schema, `${s}.schema_migrations`],
  });
  // Only missing objects are created, so a role without CREATE rights can still use a prepared schema.
  if (!rows[0]?.has_schema) await client.query({ text: `CREATE SCHEMA ${s}` });
  if (!rows[0]?.has_table) {
    await client.query({
      text: `CREATE TABLE ${s}.schema_migrations (
               version    integer PRIMARY KEY,
               name       text NOT NULL,
               applied_at timestamptz NOT NULL DEFAULT now()
             )`,
    });
  }
  const applied = await client.query<{ version: number }>({
    text: `SELECT version FROM ${s}.schema_migrations`,
  });
  const done = new Set(applied.rows.map((r) => Number(r.version)));
  const newest = Math.max(0, ...done);
  if (newest > LATEST_VERSION) throw tooNew(s, newest);
  for (const migration of MIGRATIONS) {
    if (done.has(migration.version)) continue;
    await client.query({ text: migration.sql(s) });
    await client.query({
      text: `INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`,
      values: [migration.version, migration.name],
    });
  }
}

/** Whether `schema` holds a store: its migrations table exists. Reads only. */
export async function storeExists(db: PgQueryable, schema: string): Promise<boolean> {
  const { rows } = await db.query<{ found: boolean }>({
    text: 'SELECT to_regclass($1) IS NOT NULL AS found',
    values: [`${quoteIdent(schema)}.schema_migrations`],
  });
  return rows[0]?.found === true;
}

/**
 * Creates the schema and applies the missing migrations, all in one transaction under an advisory lock keyed
 * on the schema name: any number of processes may call it at once on a fresh schema. A schema already at the
 * latest version costs one query and takes no lock.
 */
export async function migrate(pool: PgPool, schema: string, opts: { create: boolean }): Promise<void> {
  const s = quoteIdent(schema);
  const client = await pool.connect();
  let failure: Error | undefined;
  try {
    const version = await currentVersion(client, s);
    if (version === LATEST_VERSION) return;
    if (version > LATEST_VERSION) throw tooNew(s, version);
    if (!opts.create && !(await storeExists(client, schema))) {
      throw new StorageError(`${flowPrefix('postgres')}no store in schema ${s} (opened with create: false)`);
    }
    await client.query({ text: 'BEGIN' });
    try {
      await migrateLocked(client, schema, s);
      await client.query({ text: 'COMMIT' });
    } catch (error) {
      await client.query({ text: 'ROLLBACK' }).catch(() => {});
      throw error;
    }
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    throw error;
  } finally {
    // After a failure the connection may be broken: let the pool drop it rather than hand it out again.
    client.release(failure);
  }
}
