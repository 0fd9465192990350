import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { inspect as show } from 'node:util';
import { afterEach, expect, it, vi } from 'vitest';

let dir: string | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("the README's quick start runs and prints what its comments say", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const code = /## Quick start\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1] as string;
  expect(code).toContain('StateGraph');
  const memory = pathToFileURL(createRequire(import.meta.url).resolve('@flow/checkpoint-memory')).href;
  const graph = pathToFileURL(fileURLToPath(new URL('../src/index.ts', import.meta.url))).href;
  const runnable = code
    .replace("from '@flow/checkpoint-memory'", `from '${memory}'`)
    .replace("from '@flow/graph'", `from '${graph}'`);
  dir = await mkdtemp(join(tmpdir(), 'flow-graph-readme-'));
  const file = join(dir, 'quick-start.ts');
  await writeFile(file, runnable);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  await import(pathToFileURL(file).href);
  // Each console.log line in the README ends with a comment showing what it prints.
  const expected = [...code.matchAll(/console\.log\((.*)\); \/\/ (.*)/g)].map((m) => m[2]);
  const printed = log.mock.calls.map((args) =>
    args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '),
  );
  expect(printed).toEqual(expected);
});

function inspect(value: unknown): string {
  return show(value, { breakLength: Number.POSITIVE_INFINITY });
}
