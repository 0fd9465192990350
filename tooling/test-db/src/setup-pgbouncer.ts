import type { TestProject } from 'vitest/node';
import { ensurePgBouncer } from './pgbouncer.js';
import { resolvePostgres } from './resolve.js';
import './provided-context.js';

/**
 * vitest global setup, after `setup-postgres`: a PgBouncer in transaction-pooling mode in front of this run's
 * Postgres, handed to the workers as `inject('flowTestPgBouncerUrl')` and `FLOW_TEST_PGBOUNCER_URL`.
 * `FLOW_TEST_PGBOUNCER_URL` set beforehand names one to use; otherwise one on port 7010 is reused or started
 * and stopped at the end if this run started it. It is stopped, not left for later runs, because it fronts
 * this run's server: the version matrix runs the suite once per Postgres container, and a later cell must not
 * reuse a bouncer that fronts an earlier cell's (or the main) server.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-postgres', '@flow/test-db/setup-pgbouncer'] } });
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const given = process.env.FLOW_TEST_PGBOUNCER_URL;
  if (given !== undefined && given !== '') {
    project.provide('flowTestPgBouncerUrl', given);
    return () => {};
  }
  const { url: server } = await resolvePostgres();
  const bouncer = await ensurePgBouncer(server);
  process.env.FLOW_TEST_PGBOUNCER_URL = bouncer.url;
  project.provide('flowTestPgBouncerUrl', bouncer.url);
  return () => bouncer.stop();
}
