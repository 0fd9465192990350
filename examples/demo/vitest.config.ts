import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The test runs the built demo: build it first when it is stale.
    globalSetup: ['@flow/test-db/setup-dist'],
    testTimeout: 60_000,
  },
});
