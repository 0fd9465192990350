import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import type { CodeBlock } from './extract-blocks.js';

/** A block written to disk: its TypeScript source, and what is executed. */
export interface BlockFile {
  block: CodeBlock;
  /** The .ts file, type-checked. */
  source: string;
  /** What runs: a transpiled .mjs for node, the .test.ts itself for vitest. */
  entry: string;
}

const ONE_LINE_LOGS =
  "import { inspect as flowDocsInspect } from 'node:util'; flowDocsInspect.defaultOptions.breakLength = Infinity;";

/** `docs/engine.md` line 42 → `docs-engine-L42`. */
function baseName(block: CodeBlock): string {
  return `${block.file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-L${block.line}`;
}

/**
 * Writes every block into `dir` (emptied first). `dir` must sit inside a package whose node_modules holds the
 * @flow packages, so the blocks' imports resolve as they would in a user's project.
 */
export function writeBlocks(dir: string, blocks: readonly CodeBlock[]): BlockFile[] {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // An empty config, so vitest runs a block's tests without picking up this package's own config.
  writeFileSync(join(dir, 'vitest.config.mjs'), 'export default {};\n');
  return blocks.map((block) => {
    const name = baseName(block);
    if (block.runner === 'vitest') {
      const source = join(dir, `${name}.test.ts`);
      writeFileSync(source, block.code);
      return { block, source, entry: source };
    }
    const source = join(dir, `${name}.ts`);
    const entry = join(dir, `${name}.mjs`);
    writeFileSync(source, block.code);
    const js = ts.transpileModule(block.code, {
      compilerOptions: {
        module: ts.ModuleKind.ESNext,
        target: ts.ScriptTarget.ES2022,
        verbatimModuleSyntax: true,
      },
      fileName: source,
    });
    // One line per console.log call, so what a block prints can be held to the comments that promise it.
    writeFileSync(entry, `${ONE_LINE_LOGS}\n${js.outputText}`);
    return { block, source, entry };
  });
}
