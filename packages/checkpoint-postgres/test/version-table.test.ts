import { describe, expect, it } from 'vitest';
import { LATEST_VERSION, MIGRATIONS, PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { checkpoint } from './support/checkpoints.js';
import { countingPool } from './support/counting-pool.js';
import { earlierReleaseStore } from './support/earlier-release.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();

async function tablesOf(admin: ReturnType<typeof newPool>, schema: string): Promise<string[]> {
  const { rows } = await admin.query(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
    [schema],
  );
  return rows.map((r: { name: string }) => r.name);
}

describe('the version table of an earlier release (schema_migrations)', () => {
  it('at the latest version: opens with reads only, no DDL, even with create: false', async () => {
    const schema = freshSchema();
    const admin = newPool(1);
    await earlierReleaseStore(admin, quoteIdent(schema), LATEST_VERSION);
    const inner = newPool(1);
    const pool = countingPool(inner);
    const cp = new PostgresCheckpointer(pool, { schema, create: false });
    try {
      expect(await cp.exists()).toBe(true);
      await cp.setup();
      expect(pool.sent.map((q) => q.text.trim().split(/\s+/)[0])).toEqual(['SELECT', 'SELECT', 'SELECT']);
      await cp.put(checkpoint('t', 0));
      expect((await cp.get('t'))?.step).toBe(0);
      expect(await tablesOf(admin, schema)).toContain('schema_migrations');
    } finally {
      await cp.close();
      await inner.end();
      await admin.end();
    }
  });

  it('is renamed to migrations at the next migration, keeping every recorded row', async () => {
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const admin = newPool(1);
    await earlierReleaseStore(admin, s, LATEST_VERSION - 1);
    const cp = new PostgresCheckpointer(url, { schema });
    try {
      await cp.setup();
      const { rows } = await admin.query(`SELECT version, name FROM ${s}.migrations ORDER BY version`);
      expect(rows).toEqual(
        MIGRATIONS.map((m) => ({
          version: m.version,
          name: m.version === LATEST_VERSION ? m.name : `v${m.version}`,
        })),
      );
      expect(await tablesOf(admin, schema)).not.toContain('schema_migrations');
      await cp.put(checkpoint('t', 0));
      expect((await cp.get('t'))?.step).toBe(0);
    } finally {
      await cp.close();
      await admin.end();
    }
  });
});
