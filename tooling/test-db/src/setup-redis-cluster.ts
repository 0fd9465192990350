import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './redis-cluster.js';
import './provided-context.js';

/**
 * vitest global setup: a Redis Cluster of three primaries of this run's own, on free loopback ports, shut
 * down at the end (about 5 s to form). Never shared, so another checkout's run can neither stop it nor collide
 * with it while starting. Workers get its nodes as `inject('flowTestRedisClusterNodes')` (`[{ host, port }]`,
 * what ioredis' `Cluster` takes).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-redis-cluster'] } });
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startRedisCluster();
  project.provide('flowTestRedisClusterNodes', cluster.nodes);
  return () => cluster.stop();
}
