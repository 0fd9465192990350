import { defineConfig } from 'vitest/config';
import { CORE_DIST, KIT, sandboxed } from './sandbox.mjs';

// The memory backend's kit harness alone (not its own unit tests).
export default defineConfig({
  root: sandboxed('packages/checkpoint-memory'),
  resolve: { alias: { ...KIT, ...CORE_DIST } },
  test: { include: ['test/conformance.test.ts'] },
});
