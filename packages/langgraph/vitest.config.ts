import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // LangGraph's validation suite calls describe/it/expect as globals.
    globals: true,
    // Every suite runs on all five backends; the cross-process tests run child processes on the built dist.
    globalSetup: ['@flow/test-db/setup-dist', '@flow/test-db/setup-postgres', '@flow/test-db/setup-redis'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
