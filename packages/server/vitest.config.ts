import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['@flow/test-db/setup-dist', '@flow/test-db/setup-postgres'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
