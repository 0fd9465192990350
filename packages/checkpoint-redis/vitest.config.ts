import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // The README example imports the package by name; run it against the sources, no build needed.
    alias: { '@flow/checkpoint-redis': fileURLToPath(new URL('./src/index.ts', import.meta.url)) },
  },
  test: {
    // Builds dist/ when stale (the kit's process races run child processes on it); finds Redis
    // (FLOW_TEST_REDIS_URL, 127.0.0.1:6379, or a container) once, and sweeps this run's keys at the end.
    globalSetup: [
      '@flow/test-db/setup-dist',
      '@flow/test-db/setup-redis',
      '@flow/test-db/setup-redis-cluster',
    ],
    include: ['test/**/*.test.ts'],
    testTimeout: 15_000,
  },
});
