import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from './support/run-bin.js';

/**
 * An install of the CLI with no backend: dist plus only its own dependencies (core, commander), the way
 * `npm install @flow/cli` leaves it when no optional peer is installed.
 */
describe('a store whose backend package is not installed', () => {
  let dir: string;
  let bin: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-bare-'));
    const pkg = join(dir, 'node_modules', '@flow', 'cli');
    await mkdir(join(dir, 'node_modules', '@flow'), { recursive: true });
    await cp(dirname(BIN), join(pkg, 'dist'), { recursive: true });
    await cp(join(dirname(BIN), '..', 'package.json'), join(pkg, 'package.json'));
    const here = join(dirname(BIN), '..', 'node_modules');
    await symlink(join(here, '@flow', 'core'), join(dir, 'node_modules', '@flow', 'core'), 'dir');
    await symlink(join(here, 'commander'), join(dir, 'node_modules', 'commander'), 'dir');
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    bin = join(pkg, 'dist', 'bin.js');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['sqlite:runs.db', '@flow/checkpoint-sqlite'],
    ['file:runs', '@flow/checkpoint-file'],
    ['postgres://127.0.0.1/app?schema=x', '@flow/checkpoint-postgres'],
    ['redis://127.0.0.1:6379?prefix=x', '@flow/checkpoint-redis'],
  ])('%s names the package to install and exits 1', async (store, pkg) => {
    // NODE_PATH (which pnpm sets for the tests) would show the workspace's packages to the resolver.
    const result = await runBin(['threads', '--store', store], { bin, cwd: dir, env: { NODE_PATH: '' } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      new RegExp(`^error: .* need ${pkg}, which is not installed: npm install ${pkg}\\n$`),
    );
  });
});
