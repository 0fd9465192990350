import { describe, expect, it } from 'vitest';
import { runInChildren } from '../src/index.js';

const task = {
  module: new URL('./process-fixtures/json-file-checkpointer.mjs', import.meta.url),
  export: 'JsonFileCheckpointer',
};

describe('openInChild mistakes fail with a message that says how to fix them', () => {
  it('a TypeScript module: names the module and asks for the build output', async () => {
    const opener = {
      module: new URL('./process-fixtures/on-json-file.ts', import.meta.url),
      export: 'x',
      args: [],
    };
    const failure = await runInChildren({ opener, task, count: 1 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('openInChild: could not import');
    expect((failure as Error).message).toContain('on-json-file.ts');
    expect((failure as Error).message).toContain('point it at your build output');
  }, 30_000);

  it('an export that is not there: names the module and the export', async () => {
    const opener = {
      module: new URL('./process-fixtures/json-file-checkpointer.mjs', import.meta.url),
      export: 'NoSuchExport',
      args: [],
    };
    const failure = await runInChildren({ opener, task, count: 1 }).catch((e: unknown) => e);
    expect((failure as Error).message).toContain('exports no function or class named "NoSuchExport"');
  }, 30_000);
});
