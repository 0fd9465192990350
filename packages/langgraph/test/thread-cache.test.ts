import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { describe, expect, it } from 'vitest';
import { type Known, ThreadCache, ThreadCaches } from '../src/thread-cache.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Writes that arrive before their checkpoint's put (LangGraph's durability "async") wait in the cache. */
describe('writes waiting for the put of their checkpoint', () => {
  it('wake when that put starts, not when another checkpoint’s does', async () => {
    const cache = new ThreadCache(new MemoryCheckpointer(), 't');
    const first = deferred();
    cache.track(first.promise);
    const woken: string[] = [];
    void cache.putOf('B').then(() => woken.push('B'));
    void cache.putOf('C').then(() => woken.push('C'));
    cache.putting('A', Promise.resolve(undefined));
    await turn();
    expect(woken).toEqual([]);
    cache.putting('B', Promise.resolve(undefined));
    await turn();
    expect(woken).toEqual(['B']);
    // Another put under way keeps C waiting; once none is left for a turn of the event loop, C wakes too.
    const second = deferred();
    cache.track(second.promise);
    first.resolve();
    await turn();
    await turn();
    expect(woken).toEqual(['B']);
    second.resolve();
    await turn();
    await turn();
    expect(woken).toEqual(['B', 'C']);
  });

  it('wake at the end of the turn when no put is under way at all', async () => {
    const cache = new ThreadCache(new MemoryCheckpointer(), 't');
    let woken = false;
    void cache.putOf('A').then(() => {
      woken = true;
    });
    await turn();
    await turn();
    expect(woken).toBe(true);
  });

  it('stay asleep while the next put of a chain is called a few promise jobs after the last one settled', async () => {
    const cache = new ThreadCache(new MemoryCheckpointer(), 't');
    const first = deferred();
    const chained = cache.track(first.promise).then(() => {
      cache.track(new Promise(() => {}));
    });
    let woken = false;
    void cache.putOf('later').then(() => {
      woken = true;
    });
    first.resolve();
    await chained;
    await turn();
    await turn();
    expect(woken).toBe(false);
  });
});

/** A known checkpoint whose one channel holds `chars` characters of stored text. */
function known(id: string, step: number, chars: number): Known {
  return {
    id,
    step,
    versions: {},
    values: { msgs: { t: 'json', s: 'x'.repeat(chars) } },
    sorted: true,
    next: [],
  };
}

describe('what the caches hold', () => {
  it('a thread keeps its two newest checkpoints, and counts the characters of their values', () => {
    const cache = new ThreadCache(new MemoryCheckpointer(), 't');
    cache.remember(known('a', 0, 100));
    cache.remember(known('b', 1, 200));
    cache.remember(known('c', 2, 300));
    expect([...cache.known.keys()]).toEqual(['b', 'c']);
    expect(cache.chars).toBe(500);
    cache.remember(known('c', 2, 50)); // the same checkpoint again replaces itself
    expect(cache.chars).toBe(250);
  });

  it('past its budget of characters, the least recently used idle threads are dropped; a busy one stays', async () => {
    const caches = new ThreadCaches(new MemoryCheckpointer(), 1024, 1000);
    caches.of('a').remember(known('a1', 0, 400));
    const busy = caches.of('b');
    busy.remember(known('b1', 0, 400));
    const put = deferred();
    busy.track(put.promise);
    expect(caches.heldChars).toBe(800);
    caches.of('c').remember(known('c1', 0, 400)); // 1,200: `a` goes; `b` is busy
    expect(caches.heldChars).toBe(800);
    expect(caches.of('a').known.size).toBe(0); // read again when next needed
    expect(caches.of('b')).toBe(busy);
    put.resolve();
    await turn();
    caches.of('d').remember(known('d1', 0, 900)); // `c` and `b` go, `d` (the newest) stays even alone past it
    expect(caches.of('d').known.size).toBe(1);
    expect(caches.heldChars).toBe(900);
  });
});
