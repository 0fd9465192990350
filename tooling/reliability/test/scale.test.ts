import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { Checkpoint, type Checkpointer, isFlowError, jsonSerializer } from '@flow/core';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { count } from './support/figures.js';
import { ALL_BACKENDS, type BackendName, freshStore, type Store, serverUrls } from './support/stores.js';

/** Over 8 MiB once serialized: a 6 MB string of mixed scripts, 20,000 small records, bytes, dates, a Map. */
function hugeState() {
  const items = Array.from({ length: 20_000 }, (_, i) => ({
    i,
    name: `item ${i}`,
    tags: ['a', 'b'],
    at: new Date(i),
  }));
  return {
    text: 'ünïcödé 中文 😀 plain ascii '.repeat((6 * 1024 * 1024) / 32),
    items,
    bytes: new Uint8Array(256 * 1024).map((_, i) => i % 251),
    index: new Map(items.slice(0, 2_000).map((it) => [it.i, it.name])),
  };
}

/** `depth` containers inside one another, cycling through objects, arrays, Maps and Sets. */
function nested(depth: number): unknown {
  let value: unknown = { leaf: 10n };
  for (let i = 0; i < depth; i++) {
    const kind = i % 4;
    value =
      kind === 0
        ? { down: value }
        : kind === 1
          ? [value]
          : kind === 2
            ? new Map([['down', value]])
            : new Set([value]);
  }
  return value;
}

const THREADS = 50_000;
const SUFFIXES = ['', 'é', '😀', '\uE000', 'Z', 'a', ' ', '/'];
/** Thread ids whose code-point order differs from JS sorting (astral vs U+E000) and from numeric order. */
function manyIds(): string[] {
  return Array.from(
    { length: THREADS },
    (_, i) => `${(i * 7919) % THREADS}`.padStart(3, '0') + SUFFIXES[i % SUFFIXES.length],
  );
}
function codePointOrder(ids: readonly string[]): string[] {
  return [...ids].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** A checkpointer tuned for bulk loading (durability is not what these tests are about). */
function bulkLoader(store: Store): Checkpointer {
  if (store.backend === 'sqlite') return store.open({ synchronous: 'normal' });
  if (store.backend === 'postgres') {
    const pool = new pg.Pool({
      connectionString: serverUrls().postgres,
      max: 8,
      options: '-c synchronous_commit=off',
    });
    pool.on('error', () => {});
    const cp = new PostgresCheckpointer(pool, { schema: store.location });
    const close = cp.close.bind(cp);
    cp.close = async () => {
      await close();
      await pool.end();
    };
    return cp;
  }
  return store.open();
}

async function inParallel<T>(
  items: readonly T[],
  width: number,
  fn: (item: T, i: number) => Promise<unknown>,
) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

describe.each(ALL_BACKENDS)('%s: large and deep states', (backend: BackendName) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.remove();
  });

  it('an 8 MB state round-trips exactly, also through a second instance', async () => {
    const store = freshStore(backend);
    stores.push(store);
    const state = hugeState();
    const size = Buffer.byteLength(jsonSerializer.serialize(state));
    expect(size).toBeGreaterThan(8 * 1024 * 1024);
    const cp = store.open();
    await cp.put(new Checkpoint({ thread: 'huge', step: 0, state, next: ['n'] }));
    await cp.put(new Checkpoint({ thread: 'small', step: 0, state: 1 }));
    const reader = backend === 'memory' ? cp : store.open();
    expect((await reader.get('huge'))?.state).toEqual(state);
    expect((await reader.listThreads()).map((t) => t.thread)).toEqual(['huge', 'small']);
    count(`scale: ${backend}`, 'inputs tried');
  });

  it('1,000 levels of nesting round-trip; 100,000 levels are a SerializationError saying so, and nothing is written', async () => {
    const store = freshStore(backend);
    stores.push(store);
    const cp = store.open();
    const deep = nested(1000);
    await cp.put(new Checkpoint({ thread: 'deep', step: 0, state: deep, interruptPayload: nested(999) }));
    const read = await (backend === 'memory' ? cp : store.open()).get('deep');
    expect(read?.state).toEqual(deep);
    expect(read?.interruptPayload).toEqual(nested(999));
    const error = await cp
      .put(new Checkpoint({ thread: 'deeper', step: 0, state: nested(100_000) }))
      .catch((e: unknown) => e);
    expect(isFlowError(error, 'SERIALIZATION'), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/nested too deeply/);
    expect(await cp.get('deeper')).toBeUndefined();
    expect((await cp.listThreads()).map((t) => t.thread)).toEqual(['deep']);
    count(`scale: ${backend}`, 'inputs tried', 2);
  });
});

describe.each(['sqlite', 'postgres', 'redis'] as const)('%s: 50,000 threads', (backend) => {
  let store: Store;
  afterAll(() => store?.remove());

  it('listThreads pages through all of them in code-point order, with and without a status filter', async () => {
    store = freshStore(backend);
    const ids = manyIds();
    const loader = bulkLoader(store);
    await loader.setup();
    // A third finished, a third waiting for a human, a third running.
    await inParallel(ids, 64, (thread, i) =>
      loader.put(
        new Checkpoint({
          thread,
          step: i % 3,
          state: { i },
          next: i % 3 === 0 ? [] : ['n'],
          interrupted: i % 3 === 1,
          interruptNode: i % 3 === 1 ? 'ask' : null,
        }),
      ),
    );
    await loader.close();
    const cp = store.open();
    const expected = codePointOrder(ids);
    const paged: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await cp.listThreads({ after, limit: 1000 });
      if (page.length === 0) break;
      paged.push(...page.map((t) => t.thread));
      after = page.at(-1)!.thread;
    }
    expect(paged.length).toBe(THREADS);
    expect(paged).toEqual(expected);
    const interrupted: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await cp.listThreads({ after, limit: 997, status: 'interrupted' });
      if (page.length === 0) break;
      expect(page.every((t) => t.interrupted && !t.done && t.latestStep === 1)).toBe(true);
      interrupted.push(...page.map((t) => t.thread));
      after = page.at(-1)!.thread;
    }
    expect(interrupted).toEqual(codePointOrder(ids.filter((_, i) => i % 3 === 1)));
    count(`scale: ${backend}`, 'inputs tried', THREADS);
  }, 240_000);
});
