import { defineConfig } from 'vitest/config';
import { KIT_HARNESSES } from './harnesses.mjs';
import { CORE_SRC, KIT, sandboxed } from './sandbox.mjs';

// The SQLite backend's kit harnesses on core's source instead of its dist/, so core's mutants are the ones
// running. SQLite, not memory: its setup does real work (opens a file, migrates), so the lazy setup every
// method owes is observable. Every importer (backend, kit) gets the same module: instanceof still holds.
export default defineConfig({
  root: sandboxed('packages/checkpoint-sqlite'),
  resolve: { alias: { ...KIT, ...CORE_SRC } },
  test: { include: KIT_HARNESSES },
});
