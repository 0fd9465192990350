import { isFlowError } from '@flow/core';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { checkpoint } from './support/checkpoints.js';
import { dropSchema, newPool, uniqueSchema, url } from './support/stores.js';

// queryTimeout bounds each query of a pool made from a URL; its effect on a stalled link is proven in
// tooling/reliability (test/faults-postgres.test.ts), behind a fault proxy.
describe('the queryTimeout option', () => {
  it('takes a positive integer number of milliseconds, and rejects anything else with InvalidArgumentError', async () => {
    const cp = new PostgresCheckpointer(url, { schema: 'flow_unused', queryTimeout: 250 });
    await cp.close();
    for (const bad of [0, -1, 1.5, Number.NaN, '1000', null]) {
      let error: unknown;
      try {
        new PostgresCheckpointer(url, { queryTimeout: bad as number });
      } catch (e) {
        error = e;
      }
      expect(isFlowError(error, 'INVALID_ARGUMENT'), `queryTimeout: ${String(bad)}`).toBe(true);
    }
  });

  it('is refused with a pool of your own, which keeps its own query_timeout', async () => {
    const pool = newPool(1);
    try {
      expect(() => new PostgresCheckpointer(pool, { queryTimeout: 1000 })).toThrow(
        /query_timeout on your own pool/,
      );
    } finally {
      await pool.end();
    }
  });

  it('fails a put that waits longer than it with StorageError (a lock held elsewhere stands in for a silent server)', async () => {
    const schema = uniqueSchema();
    // Migrate without the short timeout first: on a loaded machine the migration alone can take 300 ms.
    const migrator = new PostgresCheckpointer(url, { schema });
    await migrator.setup();
    await migrator.close();
    const cp = new PostgresCheckpointer(url, { schema, queryTimeout: 300 });
    const admin = new pg.Client(url);
    await admin.connect();
    try {
      await cp.put(checkpoint('t', 0));
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE "${schema}".threads IN ACCESS EXCLUSIVE MODE`);
      const started = Date.now();
      const error = await cp.put(checkpoint('t', 1)).catch((e: unknown) => e);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(isFlowError(error, 'STORAGE'), String(error)).toBe(true);
      expect((error as Error).cause).toBeInstanceOf(Error);
      await admin.query('ROLLBACK');
      // The same instance goes on; the put that timed out may still have run on the server.
      expect((await cp.put(checkpoint('t', 2))).revision).toBe(1);
      expect([
        [2, 1, 0],
        [2, 0],
      ]).toContainEqual((await cp.list('t')).map((c) => c.step));
    } finally {
      await admin.end();
      await cp.close();
      await dropSchema(url, schema);
    }
  });
});
