import type { TestProject } from 'vitest/node';
import { deleteKeys } from './cleanup.js';
import { removeRunContainers, stopContainers } from './containers.js';
import { resolveRedis } from './resolve.js';
import { claimRunId } from './run-id.js';
import { keyRunPrefix } from './unique.js';
import './provided-context.js';

/**
 * vitest global setup: finds Redis once per run and hands its URL to the workers, both as
 * `inject('flowTestRedisUrl')` and as `FLOW_TEST_REDIS_URL` (for child processes). At the end it deletes
 * every key under this run's `uniquePrefix()` names that a test left behind, and stops a container it started
 * (removing any of this run's that a failed stop left).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-redis'] } });
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = claimRunId();
  const { url, source } = await resolveRedis();
  process.env.FLOW_TEST_REDIS_URL = url;
  project.provide('flowTestRedisUrl', url);
  return async () => {
    try {
      await deleteKeys(url, keyRunPrefix(run));
    } finally {
      await stopContainers('redis');
      // Without Ryuk nothing else removes a container whose stop failed: sweep this run's by label.
      if (source === 'container') await removeRunContainers('redis', run);
    }
  };
}
