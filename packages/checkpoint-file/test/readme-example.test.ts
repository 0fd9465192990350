import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const pkg = join(import.meta.dirname, '..');

// dist/ is built by the global setup when stale.
it('the README example runs as written against the built package', () => {
  const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
  const example = /## Example\n\n```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toContain("from '@flow/checkpoint-file'");
  // Run from the package directory, where '@flow/checkpoint-file' resolves to this package itself.
  // Its temp directory goes under one this test removes.
  const tmp = mkdtempSync(join(tmpdir(), 'flow-file-readme-'));
  let out: string;
  try {
    out = execFileSync(process.execPath, ['--input-type=module', '-e', example!], {
      cwd: pkg,
      encoding: 'utf8',
      env: { ...process.env, TMPDIR: tmp },
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  expect(out).toContain('0 { n: 0 }');
  expect(out).toContain("thread: 'order-42'");
  expect(out).toContain('latestStep: 1');
  expect(out).toContain('done: true');
}, 30_000);
