import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Child, startChild } from '@flow/test-db';

export type { Child };

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** Runs `test/fixtures/<script>` in a child node process, with a pipe to its stdin. */
export function runFixture(script: string, args: string[]): Child {
  return startChild(join(fixtures, script), args, { stdin: true });
}
