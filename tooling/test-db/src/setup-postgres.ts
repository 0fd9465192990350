import type { TestProject } from 'vitest/node';
import { dropSchemasStartingWith } from './cleanup.js';
import { removeRunContainers, stopContainers } from './containers.js';
import { resolvePostgres } from './resolve.js';
import { claimRunId } from './run-id.js';
import { schemaRunPrefix } from './unique.js';
import './provided-context.js';

/**
 * vitest global setup: finds Postgres once per run and hands its URL to the workers, both as
 * `inject('flowTestPostgresUrl')` and as `FLOW_TEST_POSTGRES_URL` (for child processes). At the end it drops
 * every schema this run's `uniqueSchema()` named that a test left behind, and stops a container it started
 * (removing any of this run's that a failed stop left).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-postgres'] } });
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = claimRunId();
  const { url, source } = await resolvePostgres();
  process.env.FLOW_TEST_POSTGRES_URL = url;
  project.provide('flowTestPostgresUrl', url);
  return async () => {
    try {
      await dropSchemasStartingWith(url, schemaRunPrefix(run));
    } finally {
      await stopContainers('postgres');
      // Without Ryuk nothing else removes a container whose stop failed: sweep this run's by label.
      if (source === 'container') await removeRunContainers('postgres', run);
    }
  };
}
