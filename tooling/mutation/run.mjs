#!/usr/bin/env node
// `pnpm test:mutation [memory|sqlite|core ...] [stryker flags]`: builds what the kit harnesses import, then runs
// Stryker once per target from the repository root, at the lowest CPU priority. Exits non-zero when a target
// errs or its score falls under its break threshold (see the *.stryker.mjs files).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const TARGETS = ['memory', 'sqlite', 'core'];
const root = fileURLToPath(new URL('../../', import.meta.url));
const args = process.argv.slice(2).filter((arg) => arg !== '--');
const targets = args.filter((arg) => TARGETS.includes(arg));
const flags = args.filter((arg) => !TARGETS.includes(arg));
const unknown = flags.filter((flag) => !flag.startsWith('-'));
if (unknown.length > 0) {
  console.error(`[flow:mutation] unknown target ${unknown.join(', ')}; targets are ${TARGETS.join(', ')}`);
  process.exit(2);
}

setPriority(19); // inherited by the build and by Stryker's workers

const run = (command, commandArgs) =>
  spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit' }).status ?? 1;

// The kit, core and the SQLite dist/ its child processes open are used built; only the mutated src/ is not.
if (
  run('pnpm', [
    'exec',
    'turbo',
    'run',
    'build',
    '--filter=@flow/mutation...',
    '--output-logs=errors-only',
  ]) !== 0
) {
  process.exit(1);
}

const require = createRequire(import.meta.url);
const stryker = join(dirname(require.resolve('@stryker-mutator/core/package.json')), 'bin', 'stryker.js');
let failed = false;
for (const target of targets.length > 0 ? targets : TARGETS) {
  console.log(`\n== mutation: ${target}`);
  const status = run(process.execPath, [stryker, 'run', `tooling/mutation/${target}.stryker.mjs`, ...flags]);
  if (status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
