import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
// Inside the package, so `@flow/checkpoint-sqlite` resolves to this package (the build from dist/).
const script = join(root, 'test', 'fixtures', '.readme-example.mjs');
let cwd: string | undefined;

afterEach(() => {
  rmSync(script, { force: true });
  if (cwd) rmSync(cwd, { recursive: true, force: true });
});

describe('README', () => {
  it('the Example section runs and prints what its comments say', () => {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const example = /## Example\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    writeFileSync(script, example!);
    cwd = mkdtempSync(join(tmpdir(), 'flow-readme-'));
    const run = spawnSync(process.execPath, [script], { cwd, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    // Each console.log in the example ends with a comment showing what it prints.
    const expected = [...example!.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(run.stdout.trim().split('\n')).toEqual(expected);
    expect(readFileSync(join(cwd, 'flow.db')).subarray(0, 15).toString()).toBe('SQLite format 3');
  });
});
