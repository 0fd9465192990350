import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DecryptionCache } from '../src/decryption-cache.js';
import { encryptedSerializer, isFlowError, type SerializeContext, serializerFromEnv } from '../src/index.js';

const SECRET = 'sk-live-7f3a9c2e-do-not-print';
const k1 = randomBytes(32);
const at: SerializeContext = { thread: 'order-42', step: 3, field: 'state' };
const write: SerializeContext = { thread: 'order-42', step: 3, field: 'write', node: 'a', key: 'b' };
const chunk: SerializeContext = { thread: 'order-42', step: 3, field: 'chunk', chunk: 'c1' };

/** Every other place a value could be read at: each differs from `place` in one part of the place. */
function elsewhere(place: SerializeContext): SerializeContext[] {
  if (place.field === 'chunk') {
    return [
      { ...place, thread: 'order-43' },
      { ...place, chunk: 'c2' },
      { ...place, field: 'state', chunk: undefined },
    ];
  }
  const moved: SerializeContext[] = [
    { ...place, thread: 'order-43' },
    { ...place, step: place.step + 1 },
    { ...place, field: place.field === 'state' ? 'interruptPayload' : 'state' },
  ];
  if (place.field === 'write') moved.push({ ...place, node: 'b', key: 'a' }, { ...place, key: 'c' });
  return moved;
}

function expectUnauthentic(run: () => unknown): void {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(isFlowError(error, 'CORRUPT_CHECKPOINT'), String(error)).toBe(true);
  expect((error as Error).message).toContain('authentication failed');
  expect((error as Error).message).not.toContain(SECRET);
}

describe('encryptedSerializer decryption cache', () => {
  it('a cached envelope read at another thread, step, field, write or chunk id is still rejected', () => {
    for (const place of [at, write, chunk, { ...at, field: 'interruptPayload' as const }]) {
      for (const value of [{ secret: SECRET }, null]) {
        // Held since it was written (this serializer encrypted it), and read again from the cache.
        const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });
        const text = serializer.serialize(value, place);
        expect(serializer.deserialize(text, place)).toEqual(value);
        for (const other of elsewhere(place)) expectUnauthentic(() => serializer.deserialize(text, other));
        // Held since it was read: another instance with the same key decrypted it once.
        const reader = encryptedSerializer({ keys: { k1 }, current: 'k1' });
        expect(reader.deserialize(text, place)).toEqual(value);
        for (const other of elsewhere(place)) expectUnauthentic(() => reader.deserialize(text, other));
        // The original place still reads, from the cache.
        expect(serializer.deserialize(text, place)).toEqual(value);
        expect(reader.deserialize(text, place)).toEqual(value);
      }
    }
  });

  it('a chunk is bound to its thread and id only: a later step reads it, from the cache too', () => {
    const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });
    const text = serializer.serialize({ part: SECRET }, chunk);
    expect(serializer.deserialize(text, { ...chunk, step: 9 })).toEqual({ part: SECRET });
  });

  it('rejects 1,000 single-bit flips of an envelope whose original the cache holds', () => {
    const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });
    for (const value of [{ secret: SECRET, n: 1 }, null]) {
      const text = serializer.serialize(value, at);
      const bytes = Buffer.from(text);
      for (let i = 0; i < 1000; i++) {
        const copy = Buffer.from(bytes);
        const bit = Math.floor(Math.random() * copy.length * 8);
        copy[bit >> 3]! ^= 1 << (bit & 7);
        let error: unknown;
        try {
          serializer.deserialize(copy.toString(), at);
        } catch (caught) {
          error = caught;
        }
        expect(isFlowError(error, 'CORRUPT_CHECKPOINT'), `flip of bit ${bit}`).toBe(true);
      }
      expect(serializer.deserialize(text, at)).toEqual(value);
    }
  }, 60_000); // 2,000 full decryptions: seconds on a loaded 2-core machine

  it('a place changed after the write does not change what the cache holds the value for', () => {
    const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });
    const place: SerializeContext = { ...at };
    const text = serializer.serialize({ secret: SECRET }, place);
    place.thread = 'order-43';
    expectUnauthentic(() => serializer.deserialize(text, place));
    expect(serializer.deserialize(text, at)).toEqual({ secret: SECRET });
  });

  it('every read of a cached value is a fresh value: changing one changes no later read', () => {
    const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });
    const text = serializer.serialize({ list: [1, 2], when: new Date(0) }, at);
    const first = serializer.deserialize(text, at) as { list: number[] };
    first.list.push(3);
    expect(serializer.deserialize(text, at)).toEqual({ list: [1, 2], when: new Date(0) });
  });

  it('a key of the same id with other bytes is not answered from another serializer’s cache', () => {
    const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });
    const text = serializer.serialize({ secret: SECRET }, at);
    expect(serializer.deserialize(text, at)).toEqual({ secret: SECRET });
    const impostor = encryptedSerializer({ keys: { k1: randomBytes(32) }, current: 'k1' });
    expectUnauthentic(() => impostor.deserialize(text, at));
  });

  it('cacheBytes: 0 turns it off, and a bound that is not a whole number of bytes is refused', () => {
    const off = encryptedSerializer({ keys: { k1 }, current: 'k1', cacheBytes: 0 });
    const text = off.serialize({ secret: SECRET }, at);
    expect(off.deserialize(text, at)).toEqual({ secret: SECRET });
    expectUnauthentic(() => off.deserialize(text, { ...at, step: 4 }));
    for (const cacheBytes of [-1, 1.5, Number.NaN]) {
      let error: unknown;
      try {
        encryptedSerializer({ keys: { k1 }, current: 'k1', cacheBytes });
      } catch (caught) {
        error = caught;
      }
      expect(isFlowError(error, 'INVALID_ARGUMENT'), String(cacheBytes)).toBe(true);
    }
    const list = `k1:${k1.toString('base64')}`;
    expect(
      serializerFromEnv({ FLOW_KEYS: list, FLOW_DECRYPT_CACHE_BYTES: '0' })!.deserialize(text, at),
    ).toEqual({
      secret: SECRET,
    });
    expect(() => serializerFromEnv({ FLOW_KEYS: list, FLOW_DECRYPT_CACHE_BYTES: 'off' })).toThrow(
      /FLOW_DECRYPT_CACHE_BYTES/,
    );
  });
});

describe('DecryptionCache', () => {
  const place: SerializeContext = { thread: 't', step: 1, field: 'state' };
  /** An envelope-like text of `n` characters whose tail (what the cache finds it by) names `id`. */
  const envelope = (id: number, n = 100) => `${'x'.repeat(n - 24)}${String(id).padStart(24, '0')}`;

  it('holds what was set, for that exact text and place only', () => {
    const cache = new DecryptionCache(10_000);
    const text = envelope(1);
    cache.set(text, place, 'plain');
    expect(cache.get(text, place)).toBe('plain');
    expect(cache.get(`y${text.slice(1)}`, place)).toBeUndefined();
    expect(cache.get(text, { ...place, step: 2 })).toBeUndefined();
    expect(cache.get(text, { ...place, field: 'write', node: 'n', key: 'k' })).toBeUndefined();
    cache.set(envelope(2), place, null);
    expect(cache.get(envelope(2), place)).toBeNull();
  });

  it('stays within its bytes: the least recently read goes first, a value larger than the bound is not held', () => {
    // Each entry: 160 + 100 (text) + 2 (thread) + 2 × 100 (plain) = 462 bytes; three fit in 1,600.
    const cache = new DecryptionCache(1600);
    const plain = 'p'.repeat(100);
    for (let i = 1; i <= 3; i++) cache.set(envelope(i), place, plain);
    expect(cache.get(envelope(1), place)).toBe(plain);
    cache.set(envelope(4), place, plain);
    // 1 was read since it was set, so 2, the oldest not read, made room.
    expect(cache.get(envelope(2), place)).toBeUndefined();
    for (const i of [1, 3, 4]) expect(cache.get(envelope(i), place)).toBe(plain);
    cache.set(envelope(5), place, 'q'.repeat(1000));
    expect(cache.get(envelope(5), place)).toBeUndefined();
    for (const i of [1, 3, 4]) expect(cache.get(envelope(i), place)).toBe(plain);
  });

  it('an envelope set again, or another with the same tail, replaces the entry and frees its bytes', () => {
    const cache = new DecryptionCache(1600);
    const plain = 'p'.repeat(100);
    for (let round = 0; round < 50; round++) cache.set(envelope(1), place, plain);
    const twin = `y${envelope(2).slice(1)}`;
    cache.set(envelope(2), place, plain);
    cache.set(twin, place, 'twin');
    expect(cache.get(envelope(2), place)).toBeUndefined();
    expect(cache.get(twin, place)).toBe('twin');
    // Were the replaced entries still counted, these two would not fit beside entry 1.
    cache.set(envelope(3), place, plain);
    for (const i of [1, 3]) expect(cache.get(envelope(i), place)).toBe(plain);
    expect(cache.get(twin, place)).toBe('twin');
  });

  it('keeps its bound through many rounds of eviction: never more than fits, at most an eighth less', () => {
    // 80 entries of 462 bytes fit; a generation is an eighth of the bound, 10 entries.
    const cache = new DecryptionCache(80 * 462);
    const plain = 'p'.repeat(100);
    const held = (from: number, to: number) => {
      const found = [];
      for (let i = from; i <= to; i++) if (cache.get(envelope(i), place) !== undefined) found.push(i);
      return found;
    };
    for (let i = 1; i <= 5000; i++) {
      cache.set(envelope(i), place, plain);
      if (i % 3 === 0) cache.get(envelope(i - 1), place);
      if (i % 500 === 0) {
        const count = held(1, i).length;
        expect(count, `after ${i}`).toBeLessThanOrEqual(80);
        expect(count, `after ${i}`).toBeGreaterThanOrEqual(70);
      }
    }
    // None read since: the newest 70 stay, whatever was read before goes first, a generation at a time.
    for (let i = 5001; i <= 5100; i++) cache.set(envelope(i), place, plain);
    const now = held(1, 5100);
    expect(now.length).toBeGreaterThanOrEqual(70);
    expect(now.slice(-70)).toEqual(Array.from({ length: 70 }, (_, k) => 5031 + k));
    expect(now[0]).toBeGreaterThan(5000);
  });

  it('an entry read again outlives those not read since, and a working set read over and over stays held', () => {
    const cache = new DecryptionCache(80 * 462);
    const plain = 'p'.repeat(100);
    for (let i = 1; i <= 80; i++) cache.set(envelope(i), place, plain);
    expect(cache.get(envelope(1), place)).toBe(plain);
    for (let i = 81; i <= 140; i++) cache.set(envelope(i), place, plain);
    expect(cache.get(envelope(1), place)).toBe(plain);
    expect(cache.get(envelope(2), place)).toBeUndefined();
    // 60 entries, fewer than fit: read round after round, in any order, every read is a hit.
    const work = new DecryptionCache(80 * 462);
    for (let i = 1; i <= 60; i++) work.set(envelope(i), place, plain);
    for (let round = 0; round < 50; round++) {
      for (let k = 0; k < 60; k++) {
        const i = 1 + ((k * 7 + round) % 60);
        expect(work.get(envelope(i), place), `round ${round} entry ${i}`).toBe(plain);
      }
    }
  });
});
