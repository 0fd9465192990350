import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** vitest global setup: runs `tsc` when dist/ is missing or older than src/, so child processes test current code. */
export default function buildDist(): void {
  const built = mtime(`${root}dist/index.js`);
  const sources = readdirSync(`${root}src`).map((name) => mtime(`${root}src/${name}`));
  if (built > 0 && sources.every((t) => t <= built)) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, encoding: 'utf8' });
  if (run.status !== 0)
    throw new Error(`building dist/ for the child processes failed:\n${run.stdout}${run.stderr}`);
}
