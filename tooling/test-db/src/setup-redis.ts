import type { TestProject } from 'vitest/node';
import { setupServer } from './server-setup.js';

/**
 * vitest global setup: finds Redis once per run and hands its URL to the workers, both as
 * `inject('flowTestRedisUrl')` and as `FLOW_TEST_REDIS_URL` (for child processes). At the end it deletes
 * every key under this run's `uniquePrefix()` names that a test left behind, and stops a container it started.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-redis'] } });
 */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return setupServer('redis', project);
}
