import { Checkpoint, type Checkpointer } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreKind } from '../src/store/store-url.js';
import { fixtureCheckpoints, populate } from './support/fixture.js';
import { runBin } from './support/run-bin.js';
import { createStore, type StoreFixture, usingStore } from './support/stores.js';

const TOTAL = fixtureCheckpoints(Date.now()).length;
const fixtures: StoreFixture[] = [];

async function fresh(kind: StoreKind): Promise<StoreFixture> {
  const store = await createStore(kind);
  fixtures.push(store);
  return store;
}

afterAll(async () => {
  await Promise.all(fixtures.map((f) => f.cleanup()));
});

/** Every thread and every checkpoint of a store, through the API. */
async function dump(cp: Checkpointer) {
  const threads = await cp.listThreads();
  const histories = [];
  for (const t of threads) histories.push(await cp.list(t.thread));
  return { threads, histories };
}

// A ring, so every backend is read from once and written to once.
describe.each([
  ['sqlite', 'postgres'],
  ['postgres', 'redis'],
  ['redis', 'file'],
  ['file', 'sqlite'],
] as const)('flow copy from %s to %s', (fromKind, toKind) => {
  it('copies every step with identical content, and a second run copies nothing', async () => {
    const from = await fresh(fromKind);
    const to = await fresh(toKind);
    await usingStore(from, (cp) => populate(cp));

    const first = await runBin(['copy', '--from', from.url, '--to', to.url]);
    expect(first).toEqual({
      code: 0,
      stdout: `copied ${TOTAL} checkpoints, skipped 0 already in the target (6 threads)\n`,
      stderr: '',
    });
    const source = await usingStore(from, dump);
    const target = await usingStore(to, dump);
    // Every thread and step, with states of every type, timestamps and revisions (1 on both sides).
    expect(target).toEqual(source);

    const second = await runBin(['copy', '--from', from.url, '--to', to.url]);
    expect(second).toEqual({
      code: 0,
      stdout: `copied 0 checkpoints, skipped ${TOTAL} already in the target (6 threads)\n`,
      stderr: '',
    });
    expect(await usingStore(to, dump)).toEqual(target);
  });
});

describe.each([
  ['sqlite', 'postgres'],
  ['redis', 'file'],
] as const)('flow copy of per-step writes from %s to %s', (fromKind, toKind) => {
  it('copies each step with its writes, and fills in writes a step already copied lacks', async () => {
    const from = await fresh(fromKind);
    const to = await fresh(toKind);
    const cps = await usingStore(from, (cp) => populate(cp));
    const target = cps.find((c) => c.thread === 'done-1' && c.step === 0)!;
    const writes = [
      { node: 'draft', key: 'update', value: { text: 'kept', at: new Date(0), n: 10n } },
      { node: 'publish', key: 'task:send', value: new Map([['receipt', 'r-1']]) },
    ];
    await usingStore(from, (cp) => cp.putWrites('done-1', 0, writes));

    expect((await runBin(['copy', '--from', from.url, '--to', to.url])).code).toBe(0);
    expect(await usingStore(to, (cp) => cp.getWrites('done-1', 0))).toEqual(writes);

    // A step the target already holds without writes (copied by a tool that did not copy them).
    const bare = await fresh(toKind);
    await usingStore(bare, (cp) => cp.put(target));
    expect((await runBin(['copy', '--from', from.url, '--to', bare.url])).code).toBe(0);
    expect(await usingStore(bare, (cp) => cp.getWrites('done-1', 0))).toEqual(writes);
  });
});

describe('flow copy keeps the target safe', () => {
  it('never overwrites a step the target holds with other content, and says so (exit 1)', async () => {
    const from = await fresh('sqlite');
    const to = await fresh('file');
    const cps = await usingStore(from, (cp) => populate(cp));
    const clash = cps.find((c) => c.thread === 'done-1' && c.step === 0)!.with({ state: { mine: true } });
    await usingStore(to, (cp) => cp.put(clash));

    const result = await runBin(['copy', '--from', from.url, '--to', to.url]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `copied ${TOTAL - 1} checkpoints, skipped 0 already in the target (6 threads)\n`,
    );
    expect(result.stderr).toBe(
      'warning: thread done-1 step 0 differs in the target; left as it is\n' +
        'error: 1 checkpoint differs in the target and was not copied\n',
    );
    expect((await usingStore(to, (cp) => cp.get('done-1', 0)))?.state).toEqual({ mine: true });
  });

  it('--thread copies one thread; an unknown one exits 1', async () => {
    const from = await fresh('file');
    const to = await fresh('sqlite');
    await usingStore(from, (cp) => populate(cp));
    const one = await runBin(['copy', '--from', from.url, '--to', to.url, '--thread', 'order-42']);
    expect(one).toEqual({
      code: 0,
      stdout: 'copied 4 checkpoints, skipped 0 already in the target (1 thread)\n',
      stderr: '',
    });
    expect((await usingStore(to, (cp) => cp.listThreads())).map((t) => t.thread)).toEqual(['order-42']);
    const missing = await runBin(['copy', '--from', from.url, '--to', to.url, '--thread', 'nope']);
    expect(missing).toEqual({ code: 1, stdout: '', stderr: 'error: thread "nope" not found\n' });
  });

  it('a ts before 4713 BC, which Postgres cannot store, stops a copy into Postgres with one line naming it (exit 1)', async () => {
    const from = await fresh('sqlite');
    const to = await fresh('postgres');
    await usingStore(from, (cp) =>
      cp.put(new Checkpoint({ thread: 'ancient', step: 0, state: {}, ts: '-010000-01-01T00:00:00.000Z' })),
    );
    const result = await runBin(['copy', '--from', from.url, '--to', to.url]);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: [flow:postgres] ts -010000-01-01T00:00:00.000Z of thread "ancient" step 0 is before 4713 BC: ' +
        'Postgres stores timestamps from 4713 BC (-004713-11-24T00:00:00.000Z) on, so this backend cannot store it\n',
    });
    expect(await usingStore(to, (cp) => cp.listThreads())).toEqual([]);
  });
});
