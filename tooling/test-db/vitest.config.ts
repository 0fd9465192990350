import { defineConfig } from 'vitest/config';

// The tooling tests itself with its own setups (from source, so no build is needed first).
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['./src/setup-postgres.ts', './src/setup-redis.ts'],
    testTimeout: 15_000,
  },
});
