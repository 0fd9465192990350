import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LATEST_VERSION, MIGRATIONS, PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { countingPool } from './support/counting-pool.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const fresh = freshSchemas();

async function migrationsOf(schema: string): Promise<number[]> {
  const pool = newPool(1);
  try {
    const { rows } = await pool.query(`SELECT version FROM "${schema}".migrations ORDER BY version`);
    return rows.map((r) => r.version);
  } finally {
    await pool.end();
  }
}

/** Runs setup() in a separate Node process on the built package, started now and released by `go`. */
function child(schema: string): { ready: Promise<void>; go(): void; result: Promise<string> } {
  const script = fileURLToPath(new URL('./fixtures/setup-child.mjs', import.meta.url));
  const proc = spawn(process.execPath, [script, url, schema], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let onReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  proc.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('ready\n')) onReady();
  });
  const result = new Promise<string>((resolve) =>
    proc.on('close', () => resolve(out.replace('ready\n', '').trim())),
  );
  return { ready, go: () => proc.stdin.write('go\n'), result };
}

describe('setup() on a fresh schema', () => {
  it('five instances with separate pools calling setup() at once all succeed, migrating once', async () => {
    const schema = fresh();
    const instances = Array.from({ length: 5 }, () => new PostgresCheckpointer(url, { schema }));
    try {
      await expect(Promise.all(instances.map((cp) => cp.setup()))).resolves.toHaveLength(5);
      expect(await migrationsOf(schema)).toEqual(MIGRATIONS.map((m) => m.version));
      const stored = await Promise.all(instances.map((cp, i) => cp.put(checkpoint(`t${i}`, 0))));
      expect(stored.map((c) => c.revision)).toEqual([1, 1, 1, 1, 1]);
    } finally {
      await Promise.all(instances.map((cp) => cp.close()));
    }
  });

  it('five processes calling setup() at once all succeed', { timeout: 60_000 }, async () => {
    const schema = fresh();
    const children = Array.from({ length: 5 }, () => child(schema));
    // Every process has loaded the code and opened nothing yet; release them together.
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.go();
    expect(await Promise.all(children.map((c) => c.result))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(await migrationsOf(schema)).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('a schema already migrated costs one query and no lock', async () => {
    const schema = fresh();
    const first = new PostgresCheckpointer(url, { schema });
    await first.setup();
    await first.close();
    const inner = newPool(1);
    const pool = countingPool(inner);
    const again = new PostgresCheckpointer(pool, { schema });
    await again.setup();
    expect(pool.sent.map((q) => q.text)).toEqual([
      `SELECT max(version) AS version FROM "${schema}".migrations`,
    ]);
    await again.close();
    await inner.end();
  });

  it('a fresh schema reuses one connection from the version check to COMMIT', async () => {
    const inner = newPool(4);
    const cp = new PostgresCheckpointer(inner, { schema: fresh() });
    await cp.setup();
    expect(inner.totalCount).toBe(1);
    await cp.close();
    await inner.end();
  });

  it('refuses a schema migrated by a newer release, with StorageError, and changes nothing', async () => {
    const schema = fresh();
    const cp = new PostgresCheckpointer(url, { schema });
    await cp.setup();
    const pool = newPool(1);
    await pool.query(`INSERT INTO "${schema}".migrations (version, name) VALUES ($1, 'future')`, [
      LATEST_VERSION + 1,
    ]);
    const later = new PostgresCheckpointer(url, { schema });
    await expect(later.setup()).rejects.toMatchObject({
      code: 'STORAGE',
      message: expect.stringContaining(`is at version ${LATEST_VERSION + 1}, newer than`),
    });
    await later.close();
    await cp.close();
    await pool.end();
  });
});
