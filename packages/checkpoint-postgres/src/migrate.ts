import { type MigrationDialect, migrate as runMigrations, transactionOn, VERSION_TABLE } from '@flow/core';
import type { PgPool, PgPoolClient, PgQueryable } from './driver.js';
import { MIGRATIONS } from './migrations.js';
import { quoteIdent } from './quote.js';
import { checkIn, checkOut, PG_TRANSACTION } from './transaction.js';

/** First key of the two-key advisory lock ('flow' in ASCII); the second is the hash of the schema name. */
const LOCK_NAMESPACE = 0x666c6f77;
/** The version table's name before it followed core's convention; renamed at the next migration. */
const LEGACY_VERSION_TABLE = 'schema_migrations';

/**
 * The newest version recorded in `table`, or undefined when it cannot be read (no schema or table yet, or the
 * server is away: the locked path creates it or reports the error). Runs on a checked-out client, so an error
 * here does not make the pool discard the connection the migration then reuses.
 */
async function versionIn(client: PgPoolClient, table: string): Promise<number | undefined> {
  try {
    const { rows } = await client.query<{ version: number | null }>({
      text: `SELECT max(version) AS version FROM ${table}`,
    });
    return rows[0]?.version ?? 0;
  } catch {
    return undefined;
  }
}

/** Whether `schema` holds a store: its version table exists (under either name). Reads only. */
export async function storeExists(db: PgQueryable, schema: string): Promise<boolean> {
  const s = quoteIdent(schema);
  const { rows } = await db.query<{ found: boolean }>({
    text: 'SELECT to_regclass($1) IS NOT NULL OR to_regclass($2) IS NOT NULL AS found',
    values: [`${s}.${VERSION_TABLE}`, `${s}.${LEGACY_VERSION_TABLE}`],
  });
  return rows[0]?.found === true;
}

function postgresDialect(pool: PgPool, schema: string): MigrationDialect<PgPoolClient> {
  const s = quoteIdent(schema);
  const table = `${s}.${VERSION_TABLE}`;
  return {
    backend: 'postgres',
    store: `schema ${s}`,
    packageName: '@flow/checkpoint-postgres',
    migrations: MIGRATIONS.map((m) => ({ ...m, apply: (client) => client.query({ text: m.sql(s) }) })),
    connect: () => checkOut(pool),
    // After a failure the connection may be broken: let the pool drop it rather than hand it out again.
    release: (client, failure) => checkIn(client, failure !== undefined, failure),
    currentVersion: async (client) =>
      (await versionIn(client, table)) ?? (await versionIn(client, `${s}.${LEGACY_VERSION_TABLE}`)) ?? 0,
    exists: (client) => storeExists(client, schema),
    locked: (client, work) =>
      transactionOn(PG_TRANSACTION, client, async () => {
        // Serialises every setup() of this schema, across processes; taken before anything is created, so
        // CREATE SCHEMA cannot race either. Released by COMMIT or ROLLBACK.
        await client.query({
          text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))',
          values: [LOCK_NAMESPACE, schema],
        });
        await work(client);
      }),
    async prepareVersionTable(client) {
      const { rows } = await client.query<{ has_schema: boolean; has_table: boolean; has_legacy: boolean }>({
        text: `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS has_schema,
                      to_regclass($2) IS NOT NULL AS has_table, to_regclass($3) IS NOT NULL AS has_legacy`,
        values: [schema, table, `${s}.${LEGACY_VERSION_TABLE}`],
      });
      const found = rows[0];
      // Only missing objects are created, so a role without CREATE rights can still use a prepared schema.
      if (!found?.has_schema) await client.query({ text: `CREATE SCHEMA ${s}` });
      if (found?.has_table) return;
      // A store of an earlier release: its table has the same columns, under the old name.
      await client.query({
        text: found?.has_legacy
          ? `ALTER TABLE ${s}.${LEGACY_VERSION_TABLE} RENAME TO ${VERSION_TABLE}`
          : `CREATE TABLE ${table} (
               version    integer PRIMARY KEY,
               name       text NOT NULL,
               applied_at timestamptz NOT NULL DEFAULT now()
             )`,
      });
    },
    async appliedVersions(client) {
      const { rows } = await client.query<{ version: number }>({ text: `SELECT version FROM ${table}` });
      return rows.map((r) => Number(r.version));
    },
    recordVersion: (client, migration) =>
      client.query({
        text: `INSERT INTO ${table} (version, name) VALUES ($1, $2)`,
        values: [migration.version, migration.name],
      }),
  };
}

/**
 * Creates the schema and applies the missing migrations, all in one transaction under an advisory lock keyed
 * on the schema name (core's `migrate`): any number of processes may call it at once on a fresh schema. A
 * schema already at the latest version costs one query and takes no lock.
 */
export async function migrate(pool: PgPool, schema: string, opts: { create: boolean }): Promise<void> {
  await runMigrations(postgresDialect(pool, schema), opts);
}
