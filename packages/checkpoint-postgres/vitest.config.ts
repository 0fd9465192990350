import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['@flow/test-db/setup-postgres'],
    // The suites wait on the database's disk far more than on CPU: a few files at once finish much sooner.
    maxWorkers: 4,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
