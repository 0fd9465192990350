import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The crash and race tests run child processes on the built dist: build it first when it is stale. The
    // durable-node suites run on every backend, Postgres and Redis included.
    globalSetup: ['@flow/test-db/setup-dist', '@flow/test-db/setup-postgres', '@flow/test-db/setup-redis'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
