import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Child processes (the kit's process races, crash and race tests, the README example) run the built
    // package: build dist/ first when it is older than src/.
    globalSetup: ['@flow/test-db/setup-dist'],
  },
});
