import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The crash and race tests run child processes on the built dist: build it first when it is stale.
    globalSetup: ['@flow/test-db/setup-dist'],
  },
});
