import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/support/global-setup.ts'],
    // The kit's race tests hold many connections; one file at a time keeps the server's load predictable.
    fileParallelism: false,
  },
});
