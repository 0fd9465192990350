import type { TestProject } from 'vitest/node';
import { dropSchemasStartingWith } from './cleanup.js';
import { stopContainers } from './containers.js';
import { resolvePostgres } from './resolve.js';
import { claimRunId } from './run-id.js';
import { schemaRunPrefix } from './unique.js';
import './provided-context.js';

/**
 * vitest global setup: finds Postgres once per run and hands its URL to the workers, both as
 * `inject('flowTestPostgresUrl')` and as `FLOW_TEST_POSTGRES_URL` (for child processes). At the end it drops
 * every schema this run's `uniqueSchema()` named that a test left behind, and stops a container it started.
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-postgres'] } });
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = claimRunId();
  const { url } = await resolvePostgres();
  process.env.FLOW_TEST_POSTGRES_URL = url;
  project.provide('flowTestPostgresUrl', url);
  return async () => {
    try {
      await dropSchemasStartingWith(url, schemaRunPrefix(run));
    } finally {
      await stopContainers('postgres');
    }
  };
}
