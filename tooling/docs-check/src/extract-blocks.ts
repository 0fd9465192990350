import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One ```ts block of a markdown file. */
export interface CodeBlock {
  /** The markdown file, relative to the repository root (`docs/engine.md`). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /**
   * `vitest` when the block is a test file (it imports vitest, or the conformance kit, which registers vitest
   * tests), else `node`: run as a script.
   */
  runner: 'node' | 'vitest';
}

/** The line that marks a README's ts block as a complete program for the check to run. */
export const RUN_MARK = '<!-- docs-check: runs -->';

const FENCE = /^(`{3,}|~{3,})\s*([\w-]*)/;

/**
 * The ```ts blocks of `markdown`. Blocks of any other language (sh, console, text, json, sql) are not code
 * to run. A fence may be longer than three backticks; a block ends at a fence of the same kind and length.
 */
export function extractTsBlocks(markdown: string, file: string, onlyMarked = false): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (open === null) continue;
    const fence = open[1]!;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trim() !== fence) end++;
    if (end === lines.length) throw new Error(`${file}:${i + 1}: code block is never closed`);
    const marked = lines[i - 1]?.trim() === RUN_MARK;
    if ((open[2] === 'ts' || open[2] === 'typescript') && (marked || !onlyMarked)) {
      const code = lines.slice(i + 1, end).join('\n');
      const runner = /from ['"](vitest|@flow\/checkpoint-conformance)['"]/.test(code) ? 'vitest' : 'node';
      blocks.push({ file, line: i + 1, code, runner });
    }
    i = end;
  }
  return blocks;
}

/** Every markdown file under `dir`, sorted, as paths relative to `root`. */
export function markdownFiles(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) out.push(relative(root, path));
    }
  };
  walk(join(root, dir));
  return out.sort();
}

/** The ts blocks of every markdown file under `dir`. */
export function docsBlocks(root: string, dir: string): CodeBlock[] {
  return markdownFiles(root, dir).flatMap((file) =>
    extractTsBlocks(readFileSync(join(root, file), 'utf8'), file),
  );
}

/**
 * The ts blocks marked with `RUN_MARK` in the README of every package under `dirs` (`packages/*\/README.md`):
 * a README mixes complete programs with fragments, so only the marked ones run.
 */
export function readmeBlocks(root: string, dirs: readonly string[]): CodeBlock[] {
  return dirs.flatMap((dir) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, dir, entry.name, 'README.md')))
      .map((entry) => `${dir}/${entry.name}/README.md`)
      .sort()
      .flatMap((file) => extractTsBlocks(readFileSync(join(root, file), 'utf8'), file, true)),
  );
}
