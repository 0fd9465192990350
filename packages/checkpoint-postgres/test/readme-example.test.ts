import { readFile } from 'node:fs/promises';
import * as core from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import * as postgres from '../src/index.js';
import { dropSchema, uniqueSchema, url } from './support/stores.js';

const schema = uniqueSchema();
afterAll(() => dropSchema(url, schema));

/** The first ```ts block under "## Example" in the README. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Example'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('no ts block under "## Example" in README.md');
  return match[1]!;
}

describe('the README example', () => {
  it('runs as written, against the test server and a schema of its own', async () => {
    const source = await readmeExample();
    expect(source).toContain("schema: 'flow'");
    // The example is plain JavaScript apart from its imports, which are bound to the real modules here.
    const body = source
      .replace("import { Checkpoint } from '@flow/core';", 'const { Checkpoint } = deps.core;')
      .replace(
        "import { PostgresCheckpointer } from '@flow/checkpoint-postgres';",
        'const { PostgresCheckpointer } = deps.postgres;',
      )
      .replace(
        "process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'",
        JSON.stringify(url),
      )
      .replace("schema: 'flow'", `schema: ${JSON.stringify(schema)}`);
    expect(body).not.toMatch(/^import /m);
    const logs: unknown[] = [];
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    await new AsyncFunction('deps', 'console', body)(
      { core, postgres },
      { log: (value: unknown) => logs.push(value) },
    );
    expect(logs).toEqual([1, ['order-42 @ step 1']]);
  });
});
