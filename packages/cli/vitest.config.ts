import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/build-bin.ts', '@flow/test-db/setup-postgres', '@flow/test-db/setup-redis'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
