import type { TestProject } from 'vitest/node';
import { startPgBouncer } from './pgbouncer.js';
import { resolvePostgres } from './resolve.js';
import './provided-context.js';

/**
 * vitest global setup, after `setup-postgres`: a PgBouncer in transaction-pooling mode in front of this run's
 * Postgres, handed to the workers as `inject('flowTestPgBouncerUrl')` and `FLOW_TEST_PGBOUNCER_URL`.
 * `FLOW_TEST_PGBOUNCER_URL` set beforehand names one to use; otherwise this run starts its own on a free port
 * and stops it at the end. Never shared: another checkout's teardown cannot stop it under this run, and a
 * cell of the version matrix never reaches an earlier cell's server through it.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-postgres', '@flow/test-db/setup-pgbouncer'] } });
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.FLOW_TEST_PGBOUNCER_URL;
  if (given !== undefined && given !== '') {
    project.provide('flowTestPgBouncerUrl', given);
    return async () => {};
  }
  const { url: server } = await resolvePostgres();
  const bouncer = await startPgBouncer(server);
  process.env.FLOW_TEST_PGBOUNCER_URL = bouncer.url;
  project.provide('flowTestPgBouncerUrl', bouncer.url);
  return async () => {
    delete process.env.FLOW_TEST_PGBOUNCER_URL;
    await bouncer.stop();
  };
}
