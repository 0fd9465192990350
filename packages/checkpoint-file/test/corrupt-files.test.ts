import { copyFile, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CorruptCheckpointError, isFlowError } from '@flow/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { threadName } from '../src/thread-name.js';
import { cp, useTempBase } from './support/files.js';

const t = useTempBase();
let fc: FileCheckpointer;
const stepPath = (thread: string, step: number) =>
  join(t.store, 'threads', threadName(thread), `${String(step).padStart(10, '0')}.json`);

beforeEach(async () => {
  fc = new FileCheckpointer(t.store);
  await fc.put(cp('bad', 0));
  await fc.put(cp('bad', 1));
  await fc.put(cp('good', 0, { fine: true }));
});
afterEach(async () => {
  await fc.close();
});

async function expectCorrupt(promise: Promise<unknown>, path: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isFlowError(error, 'CORRUPT_CHECKPOINT')).toBe(true);
  expect((error as CorruptCheckpointError).location).toBe(path);
  expect((error as Error).message).toContain(path);
}

describe('a corrupt step file', () => {
  it.each([
    ['garbage', 'this is not json'],
    ['empty', ''],
    ['valid JSON of another shape', '{"hello":"world"}'],
  ])('(%s) gives CorruptCheckpointError naming it, while other threads stay readable', async (_, text) => {
    const path = stepPath('bad', 1);
    await writeFile(path, text);
    await expectCorrupt(fc.get('bad', 1), path);
    await expectCorrupt(fc.get('bad'), path);
    await expectCorrupt(fc.list('bad'), path);
    expect((await fc.get('bad', 0))?.step).toBe(0);
    expect((await fc.get('good'))?.state).toEqual({ fine: true });
    // The summary still answers for the corrupt thread: listThreads never reads a step file it need not.
    expect((await fc.listThreads()).map((i) => [i.thread, i.latestStep])).toEqual([
      ['bad', 1],
      ['good', 0],
    ]);
  });

  it('that was truncated is caught by its recorded sizes', async () => {
    const path = stepPath('bad', 1);
    const { size } = await import('node:fs/promises').then((fs) => fs.stat(path));
    await truncate(path, size - 5);
    await expectCorrupt(fc.get('bad', 1), path);
  });

  it('whose state no longer deserializes is reported by its path', async () => {
    const path = stepPath('bad', 1);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"state":{"step":1}', '"state":{"step":1]'));
    await expectCorrupt(fc.get('bad', 1), path);
  });

  it('copied from another thread or step is refused, not returned under the wrong id', async () => {
    await copyFile(stepPath('good', 0), stepPath('bad', 1));
    await expectCorrupt(fc.get('bad', 1), stepPath('bad', 1));
    await copyFile(stepPath('bad', 0), stepPath('bad', 1));
    await expectCorrupt(fc.get('bad', 1), stepPath('bad', 1));
  });

  it('blocks a put on that step (its revision is unknown) but not on others', async () => {
    const path = stepPath('bad', 1);
    await writeFile(path, 'garbage');
    await expectCorrupt(fc.put(cp('bad', 1)), path);
    expect((await fc.put(cp('bad', 2))).revision).toBe(1);
    expect((await fc.put(cp('good', 1))).revision).toBe(1);
  });

  it('can be removed with deleteThread, which never reads the files', async () => {
    await writeFile(stepPath('bad', 1), 'garbage');
    await writeFile(stepPath('bad', 0), 'garbage');
    expect(await fc.deleteThread('bad')).toBe(2);
    expect(await fc.get('bad')).toBeUndefined();
  });
});

describe('the summary file', () => {
  const summaryPath = () => join(t.store, 'threads', threadName('bad'), 'thread.json');

  it('when unreadable, is replaced by the latest step header in listThreads', async () => {
    await writeFile(summaryPath(), '{oops');
    expect((await fc.listThreads()).find((i) => i.thread === 'bad')?.latestStep).toBe(1);
    await rm(summaryPath());
    expect((await fc.listThreads()).find((i) => i.thread === 'bad')?.latestStep).toBe(1);
  });

  it('when unreadable and the latest step is corrupt too, listThreads names that step file', async () => {
    await writeFile(summaryPath(), '');
    await writeFile(stepPath('bad', 1), 'garbage');
    await expectCorrupt(fc.listThreads(), stepPath('bad', 1));
    expect((await fc.get('good'))?.step).toBe(0);
  });

  it('is rewritten by the next put after it went missing', async () => {
    await rm(summaryPath());
    await fc.put(cp('bad', 0));
    const summary = JSON.parse(await readFile(summaryPath(), 'utf8'));
    expect(summary).toMatchObject({ thread: 'bad', latestStep: 1 });
  });
});
