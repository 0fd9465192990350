import type { TestProject } from 'vitest/node';
import { deleteKeys, dropSchemasStartingWith } from './cleanup.js';
import { removeRunContainers, stopContainers } from './containers.js';
import { resolvePostgres, resolveRedis } from './resolve.js';
import { claimRunId } from './run-id.js';
import { keyRunPrefix, schemaRunPrefix } from './unique.js';
import './provided-context.js';

/** What differs between the servers a global setup finds: how to find one, where to put it, what to sweep. */
const SERVERS = {
  postgres: {
    resolve: resolvePostgres,
    env: 'FLOW_TEST_POSTGRES_URL',
    key: 'flowTestPostgresUrl',
    sweep: (url: string, run: string) => dropSchemasStartingWith(url, schemaRunPrefix(run)),
  },
  redis: {
    resolve: resolveRedis,
    env: 'FLOW_TEST_REDIS_URL',
    key: 'flowTestRedisUrl',
    sweep: (url: string, run: string) => deleteKeys(url, keyRunPrefix(run)),
  },
} as const;

/**
 * The body of a server's vitest global setup: finds the server once per run and hands its URL to the workers,
 * both through `inject` and as an environment variable (for child processes). The teardown it returns sweeps
 * what this run's unique names left behind, and stops a container it started (removing any of this run's
 * that a failed stop left).
 */
export async function setupServer(
  kind: keyof typeof SERVERS,
  project: TestProject,
): Promise<() => Promise<void>> {
  const server = SERVERS[kind];
  const run = claimRunId();
  const { url, source } = await server.resolve();
  process.env[server.env] = url;
  project.provide(server.key, url);
  return async () => {
    try {
      await server.sweep(url, run);
    } finally {
      await stopContainers(kind);
      // Without Ryuk nothing else removes a container whose stop failed: sweep this run's by label.
      if (source === 'container') await removeRunContainers(kind, run);
    }
  };
}
