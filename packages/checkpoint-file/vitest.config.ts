import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // fsync-heavy tests: seconds each when CI's two cores are busy with other suites.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Child processes (the kit's process races, crash and race tests, the README example) run the built
    // package: build dist/ first when it is older than src/.
    globalSetup: ['@flow/test-db/setup-dist'],
  },
});
