import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The multi-process race runs child processes on the built package: build it first when stale.
    globalSetup: ['./test/build-dist.ts'],
  },
});
