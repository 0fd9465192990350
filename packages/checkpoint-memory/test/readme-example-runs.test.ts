import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, expect, it, vi } from 'vitest';

let dir: string | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it("the README's example runs and prints what its comments say", async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const code = /## Example\s+```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toBeDefined();
  const core = pathToFileURL(createRequire(import.meta.url).resolve('@flow/core')).href;
  const memory = pathToFileURL(fileURLToPath(new URL('../src/index.ts', import.meta.url))).href;
  const runnable = code!
    .replace("from '@flow/core'", `from '${core}'`)
    .replace("from '@flow/checkpoint-memory'", `from '${memory}'`);
  dir = await mkdtemp(join(tmpdir(), 'flow-memory-readme-'));
  const file = join(dir, 'example.mjs');
  await writeFile(file, runnable);
  const log = vi.spyOn(console, 'log').mockImplementation(() => {});
  await import(pathToFileURL(file).href);
  const printed = log.mock.calls.map((args) => args[0]);
  expect(printed[0]).toBe(1);
  expect(printed[1]).toBe('CHECKPOINT_CONFLICT');
  expect(printed[2]).toEqual({ n: 1 });
  expect(printed[3]).toEqual([
    {
      thread: 'order-42',
      latestStep: 1,
      interrupted: false,
      done: true,
      failed: false,
      error: null,
      ts: expect.any(String),
    },
  ]);
});
