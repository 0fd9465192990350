#!/usr/bin/env node
// Checks every published package the way a consumer meets it: publint (package.json, exports, files)
// and arethetypeswrong (types resolve for ESM consumers). Run after `pnpm build`; part of `pnpm lint`.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const dirs = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => {
    try {
      return !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private;
    } catch {
      return false;
    }
  });

let failed = 0;
for (const dir of dirs) {
  const name = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name;
  for (const [tool, args] of [
    ['publint', ['publint', 'run', dir, '--strict', '--level', 'warning']],
    ['attw', ['attw', '--pack', dir, '--profile', 'esm-only', '--format', 'ascii', '--no-emoji']],
  ]) {
    const run = spawnSync('pnpm', ['exec', ...args], { cwd: root, encoding: 'utf8' });
    if (run.status === 0) {
      console.log(`ok    ${tool.padEnd(8)} ${name}`);
    } else {
      failed++;
      console.log(`FAIL  ${tool.padEnd(8)} ${name}\n${run.stdout}${run.stderr}`);
    }
  }
}
if (failed > 0) {
  console.error(`${failed} package check(s) failed`);
  process.exit(1);
}
console.log(`${dirs.length} packages pass publint and arethetypeswrong`);
