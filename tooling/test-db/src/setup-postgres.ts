import type { TestProject } from 'vitest/node';
import { setupServer } from './server-setup.js';

/**
 * vitest global setup: finds Postgres once per run and hands its URL to the workers, both as
 * `inject('flowTestPostgresUrl')` and as `FLOW_TEST_POSTGRES_URL` (for child processes). At the end it drops
 * every schema this run's `uniqueSchema()` named that a test left behind, and stops a container it started.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-postgres'] } });
 */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return setupServer('postgres', project);
}
