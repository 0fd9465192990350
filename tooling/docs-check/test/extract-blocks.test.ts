import { describe, expect, it } from 'vitest';
import { extractTsBlocks } from '../src/index.js';

const md = [
  '# Title',
  '```ts',
  "console.log('a');",
  '```',
  '```sh',
  'pnpm test',
  '```',
  '````ts',
  "import { it } from 'vitest';",
  '```',
  "it('x', () => {});",
  '````',
  '```console',
  '$ flow threads',
  '```',
  '```ts',
  "import { describeCheckpointer } from '@flow/checkpoint-conformance';",
  '```',
].join('\n');

describe('extractTsBlocks', () => {
  it('takes ts blocks with their line, and leaves sh and console blocks alone', () => {
    const blocks = extractTsBlocks(md, 'docs/x.md');
    expect(blocks.map((b) => [b.line, b.runner])).toEqual([
      [2, 'node'],
      [8, 'vitest'],
      [16, 'vitest'],
    ]);
    expect(blocks[0]?.code).toBe("console.log('a');");
  });

  it('keeps a shorter fence inside a longer one as code', () => {
    expect(extractTsBlocks(md, 'docs/x.md')[1]?.code).toContain('```');
  });

  it('rejects a block that is never closed, naming file and line', () => {
    expect(() => extractTsBlocks('text\n```ts\nconst a = 1;\n', 'docs/y.md')).toThrow('docs/y.md:2');
  });
});
