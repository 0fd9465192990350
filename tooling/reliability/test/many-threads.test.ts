import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { Checkpoint, type Checkpointer } from '@flow/core';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { count } from './support/figures.js';
import { freshStore, type Store, serverUrls } from './support/stores.js';

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
