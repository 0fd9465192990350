#!/usr/bin/env node
// The packed-install test: pack every published package as npm would publish it, install the tarballs into
// a throwaway project OUTSIDE the workspace with plain npm (no workspace links), and use them there:
//  (a) a script using only @flow/graph + @flow/checkpoint-sqlite runs, and the other backends' drivers are absent;
//  (b) a TypeScript file using the public API type-checks.
// Run after `pnpm build`. Exits non-zero on any failure.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const here = new URL('.', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'flow-packed-'));
const packs = join(work, 'packs');
const app = join(work, 'app');
mkdirSync(packs);
mkdirSync(app);

const run = (cmd, args, cwd, extra = {}) => {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  return execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', ...extra });
};

try {
  // pnpm pack rewrites workspace:^ ranges into real versions, as a publish would.
  const names = {};
  for (const dir of readdirSync(join(root, 'packages'))) {
    const pkgDir = join(root, 'packages', dir);
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
    if (pkg.private) continue;
    run('pnpm', ['pack', '--pack-destination', packs], pkgDir);
    names[pkg.name] = join(packs, `${pkg.name.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);
  }

  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'packed-app', private: true, type: 'module' }),
  );
  const wanted = ['@flow/core', '@flow/graph', '@flow/checkpoint-sqlite'];
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      ...wanted.map((n) => names[n]),
      'typescript@5.9.3',
      '@types/node@20',
    ],
    app,
    {
      env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? '/usr' },
    },
  );

  for (const file of ['use-sqlite.mjs', 'typed.ts', 'tsconfig.json']) {
    writeFileSync(join(app, file), readFileSync(join(here, 'fixtures', file)));
  }
  const out = run('node', ['use-sqlite.mjs'], app);
  process.stdout.write(out);
  if (!out.includes('packed install ok')) throw new Error('the packed script did not report success');
  run('npx', ['tsc', '-p', 'tsconfig.json'], app);
  console.log('packed install: script ran and the public API type-checks');
} finally {
  rmSync(work, { recursive: true, force: true });
}
