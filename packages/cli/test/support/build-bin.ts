import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function mtimes(dir: string, ext: string): number[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith(ext))
      .map((f) => statSync(join(dir, f)).mtimeMs);
  } catch {
    return [];
  }
}

/**
 * vitest global setup: compiles the CLI when `dist/` is missing or older than any source file, so the
 * subprocess tests always exercise the current source through the real `dist/bin.js` (turbo builds a
 * package's dependencies before its tests, not the package itself).
 */
export default function setup(): void {
  const sources = [...mtimes(join(root, 'src'), '.ts'), statSync(join(root, 'package.json')).mtimeMs];
  const built = mtimes(join(root, 'dist'), '.js');
  if (built.length > 0 && Math.max(...sources) <= Math.min(...built)) return;
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
}
