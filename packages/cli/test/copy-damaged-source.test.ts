import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Checkpoint } from '@flow/core';
import { afterAll, expect, it } from 'vitest';
import { runBin } from './support/run-bin.js';
import { createStore, type StoreFixture, usingStore } from './support/stores.js';

const fixtures: StoreFixture[] = [];
afterAll(async () => {
  await Promise.all(fixtures.map((f) => f.cleanup()));
});

it('a damaged step stops only its own thread: the other threads are copied, and the command says so (exit 1)', async () => {
  const from = await createStore('file');
  const to = await createStore('sqlite');
  fixtures.push(from, to);
  await usingStore(from, async (cp) => {
    for (const thread of ['a-damaged', 'b-whole', 'c-whole']) {
      for (let step = 0; step < 3; step++) {
        await cp.put(new Checkpoint({ thread, step, state: { thread, step }, next: ['n'] }));
      }
    }
  });
  // Overwrite step 0 of the first thread with text that is not a step file.
  const threads = join(from.url.slice('file:'.length), 'threads');
  const dir = (await readdir(threads)).find((name) => name.startsWith('a-damaged-'))!;
  await writeFile(join(threads, dir, '0000000000.json'), '{"broken');

  const run = await runBin(['copy', '--from', from.url, '--to', to.url]);
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/^copied \d+ checkpoints, skipped 0 already in the target \(3 threads\)\n$/);
  expect(run.stderr).toMatch(
    /^warning: thread a-damaged copied only in part \(its older steps were not\): .*corrupt checkpoint at .*0000000000\.json/,
  );
  expect(run.stderr).toMatch(/\nerror: 1 thread could not be read whole and was copied only in part\n$/);
  await usingStore(to, async (cp) => {
    for (const thread of ['b-whole', 'c-whole']) {
      expect((await cp.list(thread)).map((c) => [c.step, c.state])).toEqual(
        [2, 1, 0].map((step) => [step, { thread, step }]),
      );
    }
    // What was read of the damaged thread before its damaged page is there; nothing older.
    expect((await cp.get('a-damaged'))?.state).toEqual({ thread: 'a-damaged', step: 2 });
    expect(await cp.get('a-damaged', 0)).toBeUndefined();
  });
});
