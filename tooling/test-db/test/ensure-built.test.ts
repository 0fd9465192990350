import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, isBuildStale } from '../src/index.js';
import setupDist from '../src/setup-dist.js';

// Inside this package, so the scratch package's `typescript` resolves to ours, as a real package's does.
const cache = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
// A real tsc run takes seconds on a busy machine: only three tests run one.
const BUILD_TIMEOUT = 60_000;

let pkg: string;
beforeEach(() => {
  mkdirSync(cache, { recursive: true });
  pkg = mkdtempSync(join(cache, 'ensure-built-'));
  write('package.json', '{ "name": "scratch", "type": "module" }');
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        rootDir: 'src',
        outDir: 'dist',
        module: 'NodeNext',
        target: 'ES2022',
        strict: true,
        skipLibCheck: true,
        types: [],
      },
      include: ['src'],
    }),
  );
  write('src/index.ts', "export { twice } from './deep/twice.js';\n");
  write('src/deep/twice.ts', 'export const twice = (n: number): number => 2 * n;\n');
});
afterEach(() => rmSync(pkg, { recursive: true, force: true }));

function write(path: string, text: string): void {
  mkdirSync(join(pkg, path, '..'), { recursive: true });
  writeFileSync(join(pkg, path), text);
}

/** Moves the modification time of `path` (relative to the package) `seconds` into the past. */
function age(path: string, seconds: number): void {
  const at = new Date(Date.now() - seconds * 1000);
  utimesSync(join(pkg, path), at, at);
}

/** Every file of the scratch package below `dir`. */
function files(dir: string): string[] {
  return readdirSync(join(pkg, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => join(dir, f))
    .filter((f) => f.endsWith('.ts') || f.endsWith('.js'));
}

/** A dist/ as a build a minute after the last edit leaves it, written by hand (no tsc run needed). */
function fakeBuild(): void {
  write('dist/index.js', "export { twice } from './deep/twice.js';\n");
  write('dist/deep/twice.js', 'export const twice = (n) => 2 * n;\n');
  for (const f of [...files('src'), 'tsconfig.json', 'package.json']) age(f, 120);
  for (const f of files('dist')) age(f, 60);
}

describe('isBuildStale', () => {
  it('is false for a dist/ newer than every input', () => {
    fakeBuild();
    expect(isBuildStale(pkg)).toBe(false);
  });

  it('is true without dist/, or with an emitted file missing', () => {
    expect(isBuildStale(pkg)).toBe(true);
    fakeBuild();
    rmSync(join(pkg, 'dist/deep/twice.js'));
    expect(isBuildStale(pkg)).toBe(true);
  });

  it('is true when a source in a subfolder, a new source, tsconfig.json or package.json is newer', () => {
    for (const edit of ['src/deep/twice.ts', 'src/deep/deeper/new.ts', 'tsconfig.json', 'package.json']) {
      fakeBuild();
      write(edit, existsSync(join(pkg, edit)) ? readFileSync(join(pkg, edit), 'utf8') : 'export {};\n');
      expect(isBuildStale(pkg), edit).toBe(true);
      rmSync(join(pkg, 'src/deep/deeper'), { recursive: true, force: true });
    }
  });

  it('ignores declaration files under src/ and old outputs whose source was deleted', () => {
    write('src/types.d.ts', 'export type N = number;\n');
    fakeBuild();
    // An output whose source is gone stays old forever: it must not force a build on every run.
    write('dist/gone.js', 'export {};\n');
    age('dist/gone.js', 3600);
    expect(isBuildStale(pkg)).toBe(false);
  });
});

describe('ensureBuilt', () => {
  it(
    'builds a package without dist/, subfolders included, then leaves the fresh build alone',
    () => {
      expect(ensureBuilt(pkg)).toBe(true);
      expect(existsSync(join(pkg, 'dist/index.js'))).toBe(true);
      expect(readFileSync(join(pkg, 'dist/deep/twice.js'), 'utf8')).toContain('2 * n');
      expect(isBuildStale(pkg)).toBe(false);
      expect(ensureBuilt(pkg)).toBe(false);
    },
    BUILD_TIMEOUT,
  );

  it('does nothing when dist/ is fresh', () => {
    fakeBuild();
    expect(ensureBuilt(pkg)).toBe(false);
  });

  it(
    'throws with the compiler output when the source does not compile',
    () => {
      write('src/broken.ts', 'export const n: number = "not a number";\n');
      expect(() => ensureBuilt(pkg)).toThrow(/tsc exit 2[\s\S]*src\/broken\.ts/);
    },
    BUILD_TIMEOUT,
  );
});

describe('the setup-dist global setup', () => {
  it(
    "rebuilds the project's root when a source in a subfolder changed",
    () => {
      fakeBuild();
      write('src/deep/twice.ts', 'export const twice = (n: number): number => n + n;\n');
      setupDist({ config: { root: pkg } } as Parameters<typeof setupDist>[0]);
      expect(readFileSync(join(pkg, 'dist/deep/twice.js'), 'utf8')).toContain('n + n');
      expect(isBuildStale(pkg)).toBe(false);
    },
    BUILD_TIMEOUT,
  );
});
