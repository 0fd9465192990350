import { defineConfig } from 'vitest/config';

// The container path for real: needs a Docker engine and the images (tooling/test-images builds them), so it
// is its own run (`pnpm --filter @flow/test-db test:containers`), not part of `pnpm test`.
export default defineConfig({
  test: { include: ['test-containers/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 120_000 },
});
