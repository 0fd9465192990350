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
  await damageStep(from, 'a-damaged', 0);

  const run = await runBin(['copy', '--from', from.url, '--to', to.url]);
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/^copied \d+ checkpoints, skipped 0 already in the target \(3 threads\)\n$/);
  expect(run.stderr).toMatch(
    /^warning: thread a-damaged copied only in part, step 2 \(1 copied\) and none older: reading the steps before 2 failed: .*corrupt checkpoint at .*0000000000\.json/,
  );
  expect(run.stderr).toMatch(
    /\nerror: 1 thread could not be read whole and was copied in part or not at all\n$/,
  );
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

/** Steps 0-4 of thread `order-42` in `store`, each with a frontier. */
async function seedOrder42(store: StoreFixture): Promise<void> {
  await usingStore(store, async (cp) => {
    for (let step = 0; step < 5; step++) {
      await cp.put(new Checkpoint({ thread: 'order-42', step, state: { step }, next: ['n'] }));
    }
  });
}

/** Overwrites one step file of `thread` in a file store with text that is not a step file. */
async function damageStep(store: StoreFixture, thread: string, step: number): Promise<void> {
  const threads = join(store.url.slice('file:'.length), 'threads');
  const dir = (await readdir(threads)).find((name) => name.startsWith(`${thread}-`))!;
  await writeFile(join(threads, dir, `${String(step).padStart(10, '0')}.json`), '{garbage');
}

it('a damaged latest step: the warning says the thread was not copied at all, and which step failed', async () => {
  const from = await createStore('file');
  const to = await createStore('sqlite');
  fixtures.push(from, to);
  await seedOrder42(from);
  await usingStore(from, (cp) => cp.put(new Checkpoint({ thread: 'whole', step: 0, state: {} })));
  await damageStep(from, 'order-42', 4);

  const run = await runBin(['copy', '--from', from.url, '--to', to.url]);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe('copied 1 checkpoint, skipped 0 already in the target (2 threads)\n');
  const lines = run.stderr.split('\n');
  expect(lines[0]).toMatch(
    /^warning: thread order-42 was not copied \(no step of it\): reading its latest step failed: \[flow:file\] corrupt checkpoint at .*order-42-[0-9a-f]+\/0000000004\.json: /,
  );
  expect(lines.slice(1)).toEqual([
    'error: 1 thread could not be read whole and was copied in part or not at all',
    '',
  ]);
  await usingStore(to, async (cp) => {
    expect(await cp.list('order-42')).toEqual([]);
    expect((await cp.get('whole'))?.step).toBe(0);
  });
});

it('a damaged step in the middle: the warning counts the steps copied and names where the copy stopped', async () => {
  const from = await createStore('file');
  const to = await createStore('sqlite');
  fixtures.push(from, to);
  await seedOrder42(from);
  // Step 4 is in the target already, the same checkpoint (its ts too): it is skipped, not copied.
  const latest = await usingStore(from, async (cp) => (await cp.get('order-42'))!);
  await usingStore(to, async (cp) => {
    await cp.put(latest);
  });
  await damageStep(from, 'order-42', 1);

  const run = await runBin(['copy', '--from', from.url, '--to', to.url]);
  expect(run.code).toBe(1);
  // The first page is the latest step alone; the next holds steps 3 to 0, and reading it fails at step 1.
  expect(run.stderr.split('\n')[0]).toMatch(
    /^warning: thread order-42 copied only in part, step 4 \(1 already in the target\) and none older: reading the steps before 4 failed: .*0000000001\.json: /,
  );
});
