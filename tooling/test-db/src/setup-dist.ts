import type { TestProject } from 'vitest/node';
import { ensureBuilt } from './ensure-built.js';

/**
 * vitest global setup: builds the package under test (the project's root) when its `dist/` is older than its
 * sources, before any test starts, so child processes and examples that import the built package never run
 * stale code, also when a suite runs without turbo (`npx vitest run` in the package folder).
 *
 * @example
 * // vitest.config.ts
 * export default defineConfig({ test: { globalSetup: ['@flow/test-db/setup-dist'] } });
 */
export default function setup(project: TestProject): void {
  ensureBuilt(project.config.root);
}
