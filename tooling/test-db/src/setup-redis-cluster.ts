import type { TestProject } from 'vitest/node';
import { ensureRedisCluster } from './redis-cluster.js';
import './provided-context.js';

/**
 * vitest global setup: a Redis Cluster of three primaries on 127.0.0.1:7001–7003, reused when it is already
 * up, and left running at the end (like the PgBouncer: a parallel run may be reusing it). Workers get its nodes as
 * `inject('flowTestRedisClusterNodes')` (`[{ host, port }]`, what ioredis' `Cluster` takes).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-redis-cluster'] } });
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const cluster = await ensureRedisCluster();
  project.provide('flowTestRedisClusterNodes', cluster.nodes);
  return () => {};
}
