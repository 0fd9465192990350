import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { freshPrefix, redisUrl } from './support/stores.js';

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
// Inside test/, so its imports resolve like the tests' own (vitest.config.ts points the package name at src/).
const script = fileURLToPath(new URL('./.readme-example.tmp.ts', import.meta.url));

describe('README', () => {
  it('the Example section runs and prints what its comments say', async () => {
    const example = /## Example\s+```ts\n([\s\S]*?)```/.exec(readFileSync(readme, 'utf8'))?.[1];
    expect(example).toBeDefined();
    // The test server and a fresh prefix instead of the example's, so parallel runs never meet.
    const code = example!
      .replace("'redis://127.0.0.1:6379'", JSON.stringify(redisUrl))
      .replace("{ prefix: 'shop' }", `{ prefix: ${JSON.stringify(freshPrefix())} }`);
    expect(code).not.toBe(example);
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args) => printed.push(format(...args)));
    try {
      writeFileSync(script, code);
      await import(/* @vite-ignore */ script);
    } finally {
      log.mockRestore();
      rmSync(script, { force: true });
    }
    // Each console.log in the example ends with a comment showing what it prints.
    const expected = [...example!.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    expect(expected.length).toBeGreaterThan(3);
    expect(printed).toEqual(expected);
  });
});
