import { defineConfig } from 'vitest/config';
import { CORE_SRC, KIT, sandboxed } from './sandbox.mjs';

// The memory backend's kit harness on core's source instead of its dist/, so core's mutants are the ones
// running. Every importer (backend, kit) gets the same module, so instanceof checks still hold.
export default defineConfig({
  root: sandboxed('packages/checkpoint-memory'),
  resolve: { alias: { ...KIT, ...CORE_SRC } },
  test: { include: ['test/conformance.test.ts'] },
});
