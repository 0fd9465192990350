import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** A TypeScript source and the file `tsc` emits for it (`.ts` → `.js`, `.mts` → `.mjs`, `.cts` → `.cjs`). */
const EMITTED: readonly [RegExp, string][] = [
  [/\.ts$/, '.js'],
  [/\.mts$/, '.mjs'],
  [/\.cts$/, '.cjs'],
];

/** When `path` was last modified, or `undefined` when it does not exist. */
function mtime(path: string): number | undefined {
  return statSync(path, { throwIfNoEntry: false })?.mtimeMs;
}

/** Every file below `dir`, subfolders included, as paths relative to it. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) =>
    statSync(join(dir, f)).isFile(),
  );
}

/** The file `tsc` writes under `dist/` for `source` (relative to `src/`), or `undefined` for none. */
function emittedFor(source: string): string | undefined {
  if (/\.d\.[cm]?ts$/.test(source)) return undefined;
  const rule = EMITTED.find(([ext]) => ext.test(source));
  return rule && source.replace(rule[0], rule[1]);
}

/**
 * Whether `packageDir/dist` is missing or older than what it is built from: stale when a source under `src/`
 * (in any subfolder) has no emitted file, or when any file under `src/`, `tsconfig.json` or `package.json`
 * (the inputs of the turbo `build` task) is newer than the oldest emitted file.
 */
export function isBuildStale(packageDir: string): boolean {
  const sources = filesBelow(join(packageDir, 'src'));
  const inputs = [
    ...sources.map((f) => join(packageDir, 'src', f)),
    join(packageDir, 'tsconfig.json'),
    join(packageDir, 'package.json'),
  ];
  const newestInput = Math.max(0, ...inputs.map((p) => mtime(p) ?? 0));
  const built = sources.flatMap((f) => {
    const out = emittedFor(f);
    return out === undefined ? [] : [mtime(join(packageDir, 'dist', out)) ?? -1];
  });
  // Deleted sources leave their old output behind; comparing only current sources' outputs ignores it.
  return built.some((t) => t < newestInput);
}

/**
 * Builds `packageDir/dist` with the package's own `tsc -p tsconfig.json` when it is stale (see
 * `isBuildStale`), so child processes and examples that import the built package run the current source.
 * Assumes the layout every package here has: `rootDir` `src`, `outDir` `dist`. Returns whether it
 * built; a failed build throws with tsc's output.
 *
 * @example
 * ensureBuilt(fileURLToPath(new URL('..', import.meta.url)));
 */
export function ensureBuilt(packageDir: string): boolean {
  if (!isBuildStale(packageDir)) return false;
  const tsc = createRequire(join(packageDir, 'package.json')).resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  if (run.error) throw run.error;
  if (run.status !== 0) {
    throw new Error(
      `building ${join(packageDir, 'dist')} failed (tsc exit ${run.status}):\n${run.stdout}${run.stderr}`,
    );
  }
  return true;
}
