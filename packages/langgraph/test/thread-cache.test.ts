import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { describe, expect, it } from 'vitest';
import { ThreadCache } from '../src/thread-cache.js';

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
