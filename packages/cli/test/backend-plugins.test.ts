import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from './support/run-bin.js';

// A third-party backend: a store factory over the memory backend, which holds one thread per process.
const memory = pathToFileURL(createRequire(import.meta.url).resolve('@flow/checkpoint-memory')).href;
const factory = (scheme: string) => `
import { Checkpoint } from '${pathToFileURL(createRequire(import.meta.url).resolve('@flow/core')).href}';
import { MemoryCheckpointer } from '${memory}';
export const stores = {
  schemes: ['${scheme}'],
  async open(url) {
    const store = new MemoryCheckpointer();
    await store.put(new Checkpoint({ thread: 'from-' + new URL(url).hostname, step: 0, state: {}, next: ['a'] }));
    return store;
  },
};
`;

describe('backend plugins, found by URL scheme', () => {
  let project: string;

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'flow-cli-plugins-'));
    await writeFile(join(project, 'package.json'), '{"name":"app","type":"module"}');
    // A package named flow-checkpoint-<scheme>, installed in the project, with a ./store subpath.
    const pkg = join(project, 'node_modules', 'flow-checkpoint-memo');
    await mkdir(pkg, { recursive: true });
    await writeFile(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'flow-checkpoint-memo', type: 'module', exports: { './store': './store.js' } }),
    );
    await writeFile(join(pkg, 'store.js'), factory('memo:'));
    // One with any name, listed in FLOW_BACKENDS.
    await writeFile(join(project, 'custom-store.js'), factory('custom:'));
  });
  afterAll(() => rm(project, { recursive: true, force: true }));

  it('a package named flow-checkpoint-<scheme> in the current project serves its scheme', async () => {
    const result = await runBin(['threads', '--store', 'memo://alpha'], { cwd: project });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^THREAD\s+STEP\s+STATUS\s+AGE\nfrom-alpha\s+0\s+running\s/);
  });

  it('FLOW_BACKENDS names a backend of any name', async () => {
    const result = await runBin(['threads', '--json', '--store', 'custom://beta'], {
      cwd: project,
      env: { FLOW_BACKENDS: './custom-store.js' },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject([{ thread: 'from-beta' }]);
  });

  it('a scheme no installed package serves names the packages to install and exits 1', async () => {
    const result = await runBin(['threads', '--store', 'nosuch://x'], { cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^error: no backend for nosuch: stores is installed: .*@flow\/checkpoint-nosuch or flow-checkpoint-nosuch.*FLOW_BACKENDS\n$/,
    );
  });
});
