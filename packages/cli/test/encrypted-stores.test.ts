import { randomBytes } from 'node:crypto';
import {
  Checkpoint,
  type Checkpointer,
  ENVELOPE_PREFIX,
  encryptedSerializer,
  jsonSerializer,
  type Serializer,
} from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin, runJson } from './support/run-bin.js';
import { createStore, type StoreFixture, usingStore } from './support/stores.js';

const SECRET = 'sk-live-secret-in-state';
const k1 = randomBytes(32);
const k2 = randomBytes(32);
const b64 = (key: Buffer) => key.toString('base64');
const K1 = { FLOW_KEYS: `k1:${b64(k1)}` };
const K2_K1 = { FLOW_KEYS: `k2:${b64(k2)},k1:${b64(k1)}` };
const K2 = { FLOW_KEYS: `k2:${b64(k2)}` };

const fixtures: StoreFixture[] = [];
afterAll(async () => {
  await Promise.all(fixtures.map((f) => f.cleanup()));
});

/**
 * A fresh Postgres store (it stores per-step writes and `meta`, and keeps envelopes as JSONB), and a way to
 * open it through the API with a given serializer.
 */
async function freshStore() {
  const store = await createStore('postgres');
  fixtures.push(store);
  const url = new URL(store.url);
  const schema = url.searchParams.get('schema') as string;
  url.searchParams.delete('schema');
  const { PostgresCheckpointer } = await import('@flow/checkpoint-postgres');
  const open = (serializer?: Serializer): Checkpointer =>
    new PostgresCheckpointer(url.toString(), serializer === undefined ? { schema } : { schema, serializer });
  const using = async <T>(serializer: Serializer | undefined, fn: (cp: Checkpointer) => Promise<T>) => {
    const cp = open(serializer);
    try {
      return await fn(cp);
    } finally {
      await cp.close();
    }
  };
  return { store, using };
}

const TS = '2024-05-01T10:00:00.000Z';

async function writeRun(cp: Checkpointer, thread: string) {
  for (let step = 0; step < 3; step++) {
    await cp.put(
      new Checkpoint({
        thread,
        step,
        state: { secret: SECRET, step },
        next: step < 2 ? ['work'] : [],
        ts: TS,
        meta: { stateVersion: 2 },
      }),
    );
  }
}

describe('flow on encrypted Postgres stores (FLOW_KEYS)', () => {
  it('migrates a plaintext store: refused without allowPlaintext, read with it, then flow rekey encrypts it', async () => {
    const { store, using } = await freshStore();
    await using(undefined, async (cp) => {
      await writeRun(cp, 'old');
      await cp.putWrites('old', 2, [{ node: 'work', key: 'result', value: SECRET }]);
    });
    const flow = (env: Record<string, string>, ...args: string[]) =>
      runBin([...args, '--store', store.url], { env });

    const refused = await flow(K1, 'show', 'old');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not encrypted');
    expect(refused.stdout + refused.stderr).not.toContain(SECRET);

    const read = (await runJson(['show', 'old', '--json', '--store', store.url], {
      env: { ...K1, FLOW_ALLOW_PLAINTEXT: '1' },
    })) as { state: { secret: string } };
    expect(read.state.secret).toBe(SECRET);

    const rekey = await flow(K1, 'rekey', 'old');
    expect(rekey).toMatchObject({ code: 0 });
    expect(rekey.stdout).toContain('3 rewritten, 0 already current');
    // The write keeps its plaintext value: what reads it is FLOW_ALLOW_PLAINTEXT, not a key.
    expect(rekey.stderr).toContain('1 per-step write stays in plaintext');
    expect(rekey.stderr).toContain('FLOW_ALLOW_PLAINTEXT=1');
    expect(rekey.stderr).not.toContain('under older keys');

    // Now encrypted: readable with the key, with ts, meta and history kept, and the secret gone from the file.
    const after = (await runJson(['history', 'old', '--json', '--store', store.url], { env: K1 })) as {
      ts: string;
      revision: number;
      state: { secret: string };
    }[];
    expect(after.map((c) => [c.ts, c.revision, c.state.secret])).toEqual(after.map(() => [TS, 2, SECRET]));
    expect((await flow({}, 'show', 'old')).stdout).not.toContain(SECRET);
    const stored = await using(jsonSerializer, (cp) => cp.list('old'));
    expect(stored.map((c) => typeof c.state === 'string' && c.state.startsWith(ENVELOPE_PREFIX))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('rotates: rekey --all moves every record to the current key, and a second run rewrites nothing', async () => {
    const { store, using } = await freshStore();
    await using(encryptedSerializer({ keys: { k1 }, current: 'k1' }), async (cp) => {
      await writeRun(cp, 'a');
      await writeRun(cp, 'b');
      await cp.putWrites('a', 2, [{ node: 'work', key: 'result', value: SECRET }]);
    });
    const flow = (env: Record<string, string>, ...args: string[]) =>
      runBin([...args, '--store', store.url], { env });
    expect((await flow(K2, 'show', 'a')).stderr).toContain('key id "k1", which is not among the keys');

    const first = await flow(K2_K1, 'rekey', '--all');
    expect(first).toMatchObject({ code: 0 });
    expect(first.stdout).toContain('rekeyed 2 threads under key "k2": 6 rewritten, 0 already current');
    expect(first.stderr).toContain('1 per-step write stays under older keys');
    const again = JSON.parse((await flow(K2_K1, 'rekey', '--all', '--json')).stdout);
    expect(again).toMatchObject({
      key: 'k2',
      threads: 2,
      rewritten: 0,
      current: 6,
      conflicts: 0,
      staleWrites: 1,
    });

    // k1 is retired: every checkpoint reads with k2 alone.
    const shown = (await runJson(['show', 'b', '--json', '--store', store.url], { env: K2 })) as {
      state: unknown;
      revision: number;
    };
    expect(shown).toMatchObject({ state: { secret: SECRET, step: 2 }, revision: 2 });
  });

  it('flow copy keeps thread and step, so the copies stay readable with the same keys', async () => {
    const from = await freshStore();
    const to = await freshStore();
    await from.using(encryptedSerializer({ keys: { k1 }, current: 'k1' }), (cp) => writeRun(cp, 'c'));
    const copied = await runBin(['copy', '--from', from.store.url, '--to', to.store.url], { env: K1 });
    expect(copied).toMatchObject({ code: 0 });
    const read = await to.using(encryptedSerializer({ keys: { k1 }, current: 'k1' }), (cp) => cp.list('c'));
    expect(read.map((c) => c.state)).toEqual([2, 1, 0].map((step) => ({ secret: SECRET, step })));
  });

  it('show and history print the state version each checkpoint was written with', async () => {
    const { store, using } = await freshStore();
    await using(undefined, async (cp) => {
      await writeRun(cp, 'v');
      await cp.put(new Checkpoint({ thread: 'v', step: 3, state: {} }));
    });
    const show = await runBin(['show', 'v', '--step', '1', '--store', store.url]);
    expect(show.stdout).toMatch(/version\s+2 \(state version\)/);
    const history = await runBin(['history', 'v', '--store', store.url]);
    expect(history.stdout).toMatch(/VERSION/);
    const json = (await runJson(['history', 'v', '--json', '--store', store.url])) as {
      stateVersion: number;
    }[];
    expect(json.map((c) => c.stateVersion)).toEqual([1, 2, 2, 2]);
  });

  it('without FLOW_KEYS, reading an encrypted store says to set it (exit 1) instead of showing ciphertext', async () => {
    const { store, using } = await freshStore();
    const target = await createStore('sqlite');
    fixtures.push(target);
    await using(encryptedSerializer({ keys: { k1 }, current: 'k1' }), async (cp) => {
      await writeRun(cp, 'small');
      // A growing list: stored as chunks, whose skeleton is not readable without the key either.
      const log: string[] = [];
      for (let step = 0; step < 4; step++) {
        log.push(`${SECRET} ${'x'.repeat(3000)}`);
        await cp.put(new Checkpoint({ thread: 'large', step, state: { log }, next: ['work'] }));
      }
    });
    const flow = (...args: string[]) => runBin(args, { env: {} });
    const refusal =
      /thread "(small|large)" step \d+: state cannot be decoded: encrypted under key id "k1", and FLOW_KEYS is not set/;
    for (const args of [
      ['show', 'small'],
      ['show', 'large'],
      ['history', 'small'],
      ['history', 'large', '--json'],
    ]) {
      const run = await flow(...args, '--store', store.url);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(refusal);
      expect(run.stderr).not.toContain('corrupt');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    // Listing needs no key.
    expect((await flow('threads', '--store', store.url)).code).toBe(0);
    // A copy without the keys stops before writing anything: no ciphertext copied as if it were the state.
    const copied = await flow('copy', '--from', store.url, '--to', target.url);
    expect(copied.code).toBe(1);
    expect(copied.stderr).toMatch(refusal);
    expect(await usingStore(target, (cp) => cp.listThreads())).toEqual([]);
  });

  it('usage errors: rekey without FLOW_KEYS, without a thread or --all, and a malformed FLOW_KEYS', async () => {
    const { store } = await freshStore();
    const flow = (env: Record<string, string>, ...args: string[]) =>
      runBin([...args, '--store', store.url], { env });
    expect((await flow({}, 'rekey', '--all')).code).toBe(2);
    expect((await flow(K1, 'rekey')).code).toBe(2);
    expect((await flow(K1, 'rekey', 't', '--all')).code).toBe(2);
    const short = randomBytes(16).toString('base64');
    const bad = await flow({ FLOW_KEYS: `weak:${short}` }, 'threads');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"weak"');
    expect(bad.stderr).not.toContain(short);
  });
});
