import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { extractTsBlocks, runBlock, typeCheck, writeBlocks } from '../src/index.js';

const here = fileURLToPath(new URL('../', import.meta.url));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function files(code: string) {
  // Under this package (like the real blocks) so @flow imports resolve; a directory of its own per test.
  const dir = mkdtempSync(join(here, '.blocks-test-'));
  dirs.push(dir);
  return writeBlocks(dir, extractTsBlocks(`\`\`\`ts\n${code}\n\`\`\``, 'docs/t.md'));
}

describe('a broken example fails the check', () => {
  it('a block that throws exits non-zero, with its error in the output', async () => {
    const [file] = files(
      "import { Checkpoint } from '@flow/core';\nnew Checkpoint({ thread: '', step: 0, state: 1 });",
    );
    const run = await runBlock(file!, {}, 20_000);
    expect(run.code).not.toBe(0);
    expect(run.output).toContain('InvalidArgumentError');
  }, 30_000);

  it('a block that misuses the API fails the type check', () => {
    const [file] = files(
      "import { Checkpoint } from '@flow/core';\nnew Checkpoint({ thread: 't', stp: 0 });",
    );
    const problems = typeCheck([file!.source], `${here}tsconfig.blocks.json`);
    expect(problems.join('\n')).toMatch(/stp/);
  }, 60_000);

  it('a vitest block with a failing test exits non-zero', async () => {
    const [file] = files("import { expect, it } from 'vitest';\nit('fails', () => expect(1).toBe(2));");
    const run = await runBlock(file!, {}, 30_000);
    expect(run.code).not.toBe(0);
    expect(run.output).toMatch(/1 failed/);
  }, 40_000);
});
