import { defineConfig } from 'vitest/config';
import { KIT_HARNESSES } from './harnesses.mjs';
import { CORE_DIST, KIT, sandboxed } from './sandbox.mjs';

// The SQLite backend's kit harnesses alone. Its child processes open the built dist/ (built by the runner
// before Stryker copies the repository): mutants live in src/, so only in-process checks can catch them.
export default defineConfig({
  root: sandboxed('packages/checkpoint-sqlite'),
  resolve: { alias: { ...KIT, ...CORE_DIST } },
  test: { include: KIT_HARNESSES },
});
