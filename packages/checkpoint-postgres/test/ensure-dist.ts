import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const pkg = join(import.meta.dirname, '..');

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir)) t = Math.max(t, statSync(join(dir, name)).mtimeMs);
  return t;
}

/**
 * Builds `dist/` when it is missing or older than `src/`: the conformance kit's child processes import the
 * built package, the way an application would, and `pnpm test` runs before this package's own build.
 */
export function ensureBuilt(): void {
  let built = 0;
  try {
    built = statSync(join(pkg, 'dist', 'index.js')).mtimeMs;
  } catch {}
  if (built >= newest(join(pkg, 'src'))) return;
  const tsc = createRequire(join(pkg, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(pkg, 'tsconfig.json')], { stdio: 'inherit' });
}
