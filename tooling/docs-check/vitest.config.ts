import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Examples build stores on real servers; on a loaded machine a hook takes longer than vitest's 10 s.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Blocks that use Postgres or Redis get their URLs from @flow/test-db (FLOW_TEST_*_URL, a local server,
    // or containers; never skipped).
    globalSetup: ['@flow/test-db/setup-postgres', '@flow/test-db/setup-redis'],
    include: ['test/**/*.test.ts'],
  },
});
