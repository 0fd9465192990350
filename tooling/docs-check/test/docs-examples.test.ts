import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type BlockFile, docsBlocks, runBlock, typeCheck, writeBlocks } from '../src/index.js';
import { type DocsStores, docsStores } from './support/stores.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('../', import.meta.url));
const blocks = docsBlocks(root, 'docs');
// Inside this package, so the blocks import the @flow packages from its node_modules, as a user's code would.
const files: BlockFile[] = writeBlocks(`${here}.blocks`, blocks);

let stores: DocsStores;
beforeAll(async () => {
  stores = await docsStores(inject('flowTestPostgresUrl'), inject('flowTestRedisUrl'));
});
afterAll(async () => {
  await stores?.drop();
});

describe('docs/', () => {
  it('has ts examples in every page', () => {
    expect(new Set(blocks.map((b) => b.file)).size).toBeGreaterThanOrEqual(6);
  });

  it('every ts block type-checks (strict, NodeNext) against the workspace packages', () => {
    expect(
      typeCheck(
        files.map((f) => f.source),
        `${here}tsconfig.blocks.json`,
      ),
    ).toEqual([]);
  }, 60_000);

  describe.each(files.map((f) => [`${f.block.file}:${f.block.line}`, f] as const))('%s', (_, file) => {
    it(`runs to the end with exit code 0 (${file.block.runner})`, async () => {
      const run = await runBlock(file, stores.env, 50_000);
      expect(run.code, run.output).toBe(0);
      // A test block must have run tests, all of them passing.
      if (file.block.runner === 'vitest') expect(run.output).toMatch(/Tests\s+\d+ passed \(\d+\)/);
    }, 60_000);
  });
});
