import { describe, expect, it } from 'vitest';
import { extractTsBlocks, printsKept, promisedPrints, RUN_MARK } from '../src/index.js';

describe('what a block promises to print', () => {
  const code = [
    'console.log(first.revision); // 1',
    '  .catch((e) => console.log(e.code)); // CHECKPOINT_CONFLICT',
    'await store.close(); // not a print',
    "console.log(await store.listThreads()); // [{ thread: 'a', ts: '…' }]",
  ].join('\n');

  it('reads the comment after each console.log call, and nothing else', () => {
    expect(promisedPrints(code)).toEqual(['1', 'CHECKPOINT_CONFLICT', "[{ thread: 'a', ts: '…' }]"]);
  });

  it('holds stdout to it line by line, spaces aside, with … standing for anything', () => {
    const promised = promisedPrints(code);
    expect(
      printsKept(promised, "1\nCHECKPOINT_CONFLICT\n[ { thread: 'a', ts: '2026-12-01T00:00:00.000Z' } ]\n"),
    ).toBe(true);
    expect(printsKept(promised, "2\nCHECKPOINT_CONFLICT\n[ { thread: 'a', ts: 'x' } ]\n")).toBe(false);
    expect(printsKept(promised, "1\nCHECKPOINT_CONFLICT\n[ { thread: 'b', ts: 'x' } ]\n")).toBe(false);
    expect(printsKept(promised, '1\nCHECKPOINT_CONFLICT\n')).toBe(false);
    expect(printsKept(promised, "1\nCHECKPOINT_CONFLICT\n[ { thread: 'a', ts: 'x' } ]\nmore\n")).toBe(false);
  });
});

describe('README blocks', () => {
  it('only the blocks right under the run mark are taken when only marked ones are asked for', () => {
    const readme = ['```ts', 'fragment;', '```', RUN_MARK, '```ts', 'program();', '```'].join('\n');
    expect(extractTsBlocks(readme, 'README.md', true).map((b) => b.code)).toEqual(['program();']);
    expect(extractTsBlocks(readme, 'README.md').map((b) => b.code)).toEqual(['fragment;', 'program();']);
  });
});
