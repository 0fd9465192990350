import { defineConfig } from 'vitest/config';
import { KIT_HARNESSES } from './harnesses.mjs';
import { CORE_SRC, KIT, sandboxed } from './sandbox.mjs';

// The memory backend's kit harnesses on core's source instead of its dist/, so core's mutants are the ones
// running. Every importer (backend, kit) gets the same module, so instanceof checks still hold. Memory keeps
// a run short; its setup does nothing, so the lazy setup core owes every method cannot be seen here (on
// SQLite it can, at ten times the run time).
export default defineConfig({
  root: sandboxed('packages/checkpoint-memory'),
  resolve: { alias: { ...KIT, ...CORE_SRC } },
  test: { include: KIT_HARNESSES },
});
