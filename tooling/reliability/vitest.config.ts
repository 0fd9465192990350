import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Postgres and Redis are found (or started) once per run; the figures are reset first and printed last.
    globalSetup: [
      '@flow/test-db/setup-postgres',
      '@flow/test-db/setup-redis',
      './test/support/figures-setup.ts',
    ],
    include: ['test/**/*.test.ts'],
    // Most files start child processes of their own: two files at a time keep a small machine responsive.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
