import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The kit's process races run child processes on the built package: build dist/ first when it is stale.
    globalSetup: [
      '@flow/test-db/setup-dist',
      '@flow/test-db/setup-postgres',
      '@flow/test-db/setup-pgbouncer',
    ],
    // The suites wait on the database's disk far more than on CPU: a few files at once finish much sooner.
    maxWorkers: 4,
    // Test files share one module graph per worker (none keeps module state): less CPU on a shared machine.
    isolate: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
