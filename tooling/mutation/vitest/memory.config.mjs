import { defineConfig } from 'vitest/config';
import { KIT_HARNESSES } from './harnesses.mjs';
import { CORE_DIST, KIT, sandboxed } from './sandbox.mjs';

// The memory backend's kit harnesses alone (not its own unit tests).
export default defineConfig({
  root: sandboxed('packages/checkpoint-memory'),
  resolve: { alias: { ...KIT, ...CORE_DIST } },
  test: { include: KIT_HARNESSES },
});
