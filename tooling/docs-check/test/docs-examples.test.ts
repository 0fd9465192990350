import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type BlockFile,
  docsBlocks,
  printsKept,
  promisedPrints,
  readmeBlocks,
  runBlock,
  typeCheck,
  writeBlocks,
} from '../src/index.js';
import { type DocsStores, docsStores } from './support/stores.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const here = fileURLToPath(new URL('../', import.meta.url));
const pages = docsBlocks(root, 'docs');
// The README examples marked to run (`<!-- docs-check: runs -->`), held to the same standard.
const readmes = readmeBlocks(root, ['packages']);
const blocks = [...pages, ...readmes];
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
    expect(new Set(pages.map((b) => b.file)).size).toBeGreaterThanOrEqual(6);
  });

  it('runs the marked example of each package README that has one', () => {
    expect(readmes.map((b) => b.file)).toEqual([
      'packages/checkpoint-file/README.md',
      'packages/checkpoint-memory/README.md',
      'packages/checkpoint-postgres/README.md',
      'packages/checkpoint-redis/README.md',
      'packages/checkpoint-sqlite/README.md',
      'packages/graph/README.md',
      'packages/langgraph/README.md',
    ]);
  });

  it('every ts block type-checks (strict, NodeNext) against the workspace packages', () => {
    expect(
      typeCheck(
        files.map((f) => f.source),
        `${here}tsconfig.blocks.json`,
      ),
    ).toEqual([]);
  }, 60_000);

  describe.each(files.map((f, i) => [`${f.block.file}:${f.block.line}`, f, i] as const))(
    '%s',
    (_, file, i) => {
      it(`runs to the end with exit code 0 (${file.block.runner}), printing what its comments say`, async () => {
        const run = await runBlock(file, stores.envFor(i), 50_000);
        expect(run.code, run.output).toBe(0);
        // `console.log(x); // text` promises that line prints `text`.
        const promised = promisedPrints(file.block.code);
        if (promised.length > 0)
          expect(printsKept(promised, run.stdout), `${promised.join('\n')}\n---\n${run.stdout}`).toBe(true);
        // A test block must have run tests, all of them passing.
        if (file.block.runner === 'vitest') expect(run.output).toMatch(/Tests\s+\d+ passed \(\d+\)/);
      }, 60_000);
    },
  );
});
