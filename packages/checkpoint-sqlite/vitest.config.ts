import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // The kit's process races and the multi-process race run child processes on the built package, and the
    // README example imports it by name: build dist/ first when it is older than src/.
    globalSetup: ['@flow/test-db/setup-dist'],
  },
});
