import { join } from 'node:path';
import { type Child, startChild as startScript } from '@flow/test-db';

export type { Child };

/** The child scripts of these tests. */
export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** Runs `test/fixtures/<script>` in a child node process. */
export function startChild(script: string, args: readonly string[], env?: NodeJS.ProcessEnv): Child {
  return startScript(join(FIXTURES, script), args, { env: env ?? process.env });
}

/** A random integer in [min, max]. */
export function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}
