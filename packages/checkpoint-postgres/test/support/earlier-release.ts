import type pg from 'pg';
import { MIGRATIONS } from '../../src/migrations.js';

/**
 * Makes `s` (a quoted schema name) a store exactly as an earlier release left it at `version`: the first
 * `version` migrations applied and recorded in `schema_migrations`, the version table's name before core's
 * convention, with the names `v1`, `v2`...
 */
export async function earlierReleaseStore(admin: pg.Pool, s: string, version: number): Promise<void> {
  await admin.query(`CREATE SCHEMA ${s}`);
  await admin.query(`CREATE TABLE ${s}.schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  for (const migration of MIGRATIONS.slice(0, version)) {
    await admin.query(migration.sql(s));
    await admin.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [
      migration.version,
      `v${migration.version}`,
    ]);
  }
}
