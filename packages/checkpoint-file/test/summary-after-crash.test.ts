import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Checkpoint, encodeRecord, jsonSerializer } from '@flow/core';
import { expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { encodeStepFile } from '../src/step-file.js';
import { threadName } from '../src/thread-name.js';
import { useTempBase } from './support/files.js';

const t = useTempBase();

/**
 * What a writer killed between the step file's rename and the summary's leaves behind: the new step file,
 * the old summary, and its lock file (a dead pid on this host).
 */
async function crashAfterStepRename(root: string, thread: string, step: number): Promise<void> {
  const record = encodeRecord(new Checkpoint({ thread, step, state: { step }, next: ['n'] }), jsonSerializer);
  const dir = join(root, 'threads', threadName(thread));
  await writeFile(join(dir, `${String(step).padStart(10, '0')}.json`), encodeStepFile(record, 1, true), {
    mode: 0o600,
  });
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const owner = { pid: dead, host: hostname(), token: 'crashed', at: new Date().toISOString() };
  await writeFile(join(root, 'locks', `${threadName(thread)}.lock`), JSON.stringify(owner), { mode: 0o600 });
}

it('listThreads agrees with get right after a writer died between the step and the summary renames', async () => {
  const fc = new FileCheckpointer(t.store);
  await fc.put(new Checkpoint({ thread: 'crashed', step: 0, state: 0, next: ['n'] }));
  await fc.put(new Checkpoint({ thread: 'crashed', step: 1, state: 1, next: ['n'] }));
  await fc.put(new Checkpoint({ thread: 'calm', step: 0, state: 0 }));
  await crashAfterStepRename(t.store, 'crashed', 2);

  expect((await fc.get('crashed'))?.step).toBe(2);
  expect((await fc.listThreads()).map((i) => [i.thread, i.latestStep])).toEqual([
    ['calm', 0],
    ['crashed', 2],
  ]);
  // The next writer breaks the dead writer's lock and rewrites the summary.
  await fc.put(new Checkpoint({ thread: 'crashed', step: 3, state: 3, next: [] }));
  expect((await fc.listThreads({ status: 'done' })).map((i) => [i.thread, i.latestStep])).toEqual([
    ['calm', 0],
    ['crashed', 3],
  ]);
  await fc.close();
});
