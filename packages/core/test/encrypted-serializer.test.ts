import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  type CheckpointRecord,
  decodeRecord,
  ENVELOPE_PREFIX,
  encryptedSerializer,
  isFlowError,
  jsonSerializer,
  type SerializeContext,
} from '../src/index.js';

const SECRET = 'sk-live-7f3a9c2e-do-not-print';
const k1 = randomBytes(32);
const k2 = randomBytes(32);
const k3 = randomBytes(32);
const at: SerializeContext = { thread: 'order-42', step: 3, field: 'state' };

function failure(run: () => unknown): Error {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected a failure, got ${inspect(result)}`);
}

function expectCorrupt(run: () => unknown, mentions?: string): Error {
  const error = failure(run);
  expect(isFlowError(error, 'CORRUPT_CHECKPOINT'), error.message).toBe(true);
  expect(error.message).not.toContain(SECRET);
  if (mentions !== undefined) expect(error.message).toContain(mentions);
  return error;
}

describe('encryptedSerializer', () => {
  const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });

  it('round-trips rich values, and the envelope is a JSON string with a recognisable prefix', () => {
    const value = { secret: SECRET, when: new Date(0), big: 2n ** 70n, map: new Map([[1, new Set(['a'])]]) };
    const text = serializer.serialize(value, at);
    expect(text).not.toContain(SECRET);
    const parsed: unknown = JSON.parse(text);
    expect(typeof parsed).toBe('string');
    expect((parsed as string).startsWith(ENVELOPE_PREFIX)).toBe(true);
    expect(serializer.deserialize(text, at)).toEqual(value);
    expect(serializer.keyIdOf(text)).toBe('k1');
    expect(serializer.keyIdOf(jsonSerializer.serialize(value))).toBeUndefined();
  });

  it('uses a fresh IV for every value: the same value encrypts differently each time', () => {
    const texts = new Set(Array.from({ length: 50 }, () => serializer.serialize('same', at)));
    expect(texts.size).toBe(50);
  });

  it('rejects 1,000 random single-bit flips anywhere in the envelope, never yielding plaintext', () => {
    const text = serializer.serialize({ secret: SECRET, n: 1 }, at);
    const bytes = Buffer.from(text);
    const kinds = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const copy = Buffer.from(bytes);
      const bit = Math.floor(Math.random() * copy.length * 8);
      copy[bit >> 3]! ^= 1 << (bit & 7);
      const tampered = copy.toString();
      expect(tampered).not.toBe(text);
      const error = expectCorrupt(() => serializer.deserialize(tampered, at));
      kinds.add(error.message.replace(/^.*?: /, '').split(/[ (:]/)[0]!);
    }
    // The flips reached every part: prefix and quotes, the base64 alphabet, the header, the ciphertext.
    expect(kinds.size).toBeGreaterThan(2);
  });

  it('rotates across three keys: every key decrypts, the current one encrypts', () => {
    const first = encryptedSerializer({ keys: { k1 }, current: 'k1' });
    const second = encryptedSerializer({ keys: { k1, k2 }, current: 'k2' });
    const third = encryptedSerializer({ keys: { k1, k2, k3 }, current: 'k3' });
    const records = [first, second, third].map((s, i) => s.serialize({ written: i + 1 }, at));
    expect(records.map((r) => third.keyIdOf(r))).toEqual(['k1', 'k2', 'k3']);
    expect(records.map((r) => third.deserialize(r, at))).toEqual([
      { written: 1 },
      { written: 2 },
      { written: 3 },
    ]);
    // A key order in `keys` does not choose the current one; `current` does.
    const reordered = encryptedSerializer({ keys: { k3, k1, k2 }, current: 'k2' });
    expect(reordered.keyIdOf(reordered.serialize(1, at))).toBe('k2');
    // A retired key no longer decrypts its records.
    const retired = encryptedSerializer({ keys: { k2, k3 }, current: 'k3' });
    expectCorrupt(() => retired.deserialize(records[0]!, at), 'key id "k1", which is not among the keys');
    expect(retired.deserialize(records[1]!, at)).toEqual({ written: 2 });
  });

  it('a key with the right id but other bytes fails authentication', () => {
    const impostor = encryptedSerializer({ keys: { k1: k2 }, current: 'k1' });
    expectCorrupt(() => impostor.deserialize(serializer.serialize(SECRET, at), at), 'authentication failed');
  });

  it('a record moved to another thread, step, field or write fails authentication', () => {
    const text = serializer.serialize({ secret: SECRET }, at);
    expectCorrupt(
      () => serializer.deserialize(text, { ...at, thread: 'order-43' }),
      'thread "order-43" step 3',
    );
    expectCorrupt(() => serializer.deserialize(text, { ...at, step: 4 }), 'authentication failed');
    expectCorrupt(
      () => serializer.deserialize(text, { ...at, field: 'interruptPayload' }),
      'authentication failed',
    );
    const write: SerializeContext = { thread: 't', step: 1, field: 'write', node: 'a', key: 'b' };
    const w = serializer.serialize(1, write);
    expect(serializer.deserialize(w, write)).toBe(1);
    expectCorrupt(() => serializer.deserialize(w, { ...write, node: 'b', key: 'a' }), 'write ["b","a"]');
    expectCorrupt(() => serializer.deserialize(w, { ...write, key: 'c' }), 'authentication failed');
    // Thread and step cannot be confused by splicing one into the other.
    const odd = serializer.serialize(1, { thread: 'a",1', step: 2, field: 'state' });
    expectCorrupt(() => serializer.deserialize(odd, { thread: 'a', step: 12, field: 'state' }));
  });

  it('refuses a plaintext record unless allowPlaintext, which reads it for migrating', () => {
    const plain = jsonSerializer.serialize({ secret: SECRET, d: new Date(5) });
    expectCorrupt(() => serializer.deserialize(plain, at), 'not encrypted');
    const migrating = encryptedSerializer({ keys: { k1 }, current: 'k1', allowPlaintext: true });
    expect(migrating.deserialize(plain, at)).toEqual({ secret: SECRET, d: new Date(5) });
    // It still writes encrypted, and still refuses a tampered envelope.
    const text = migrating.serialize('x', at);
    expect(migrating.keyIdOf(text)).toBe('k1');
    expectCorrupt(() =>
      migrating.deserialize(
        text.replace(/.(?="$)/, (c) => (c === 'A' ? 'B' : 'A')),
        at,
      ),
    );
  });

  it('a value without its place is refused: nothing is encrypted unbound', () => {
    const error = failure(() => serializer.serialize(1));
    expect(isFlowError(error, 'SERIALIZATION')).toBe(true);
    expect(
      isFlowError(
        failure(() => serializer.deserialize(serializer.serialize(1, at))),
        'SERIALIZATION',
      ),
    ).toBe(true);
  });

  it('passes the inner serializer its errors on write, and hides its messages on read', () => {
    expect(
      isFlowError(
        failure(() => serializer.serialize({ f: () => 1 }, at)),
        'SERIALIZATION',
      ),
    ).toBe(true);
    const leaky = encryptedSerializer({
      keys: { k1 },
      current: 'k1',
      inner: {
        serialize: (v) => JSON.stringify(v),
        deserialize: (t) => {
          throw new Error(`cannot read ${t}`);
        },
      },
    });
    expectCorrupt(() => leaky.deserialize(leaky.serialize(SECRET, at), at), 'inner serializer (Error)');
  });

  it('through the core decode path, the error names the record and the field, never the plaintext', () => {
    const record: CheckpointRecord = {
      thread: 'order-42',
      step: 3,
      state: serializer.serialize({ secret: SECRET }, at),
      next: [],
      interrupted: false,
      interruptNode: null,
      interruptPayload: serializer.serialize(null, { ...at, field: 'interruptPayload' }),
      ts: '2024-01-01T00:00:00.000Z',
      revision: 1,
      error: null,
      meta: '{}',
    };
    expect(decodeRecord(record, serializer, 'row 7').state).toEqual({ secret: SECRET });
    const moved = { ...record, thread: 'order-1' };
    const error = expectCorrupt(() => decodeRecord(moved, serializer, 'row 7', 'test'));
    expect(error.message).toMatch(/^\[flow:test\] corrupt checkpoint at row 7: state cannot be decoded: /);
    expect(error.message).toContain('authentication failed under key "k1"');
    expect(inspect(error, { depth: 5 })).not.toContain(SECRET);
  });
});

describe('encryptedSerializer keys', () => {
  const bad = (options: unknown) => failure(() => encryptedSerializer(options as never));

  it('rejects keys that are not 32 bytes, naming the key id and never the key', () => {
    const short = randomBytes(16);
    const error = bad({ keys: { good: k1, weak: short }, current: 'good' });
    expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
    expect(error.message).toContain('"weak"');
    expect(error.message).toContain('got 16');
    for (const form of ['hex', 'base64', 'base64url', 'latin1'] as const) {
      expect(error.message).not.toContain(short.toString(form));
    }
    expect(bad({ keys: { s: 'a'.repeat(32) }, current: 's' }).message).toContain(
      'key "s" must be a Uint8Array',
    );
  });

  it('rejects a bad key id, an empty key set and a current id that is not a key', () => {
    expect(bad({ keys: { 'a:b': k1 }, current: 'a:b' }).message).toContain('"a:b"');
    expect(bad({ keys: {}, current: 'x' }).message).toContain('at least one key');
    expect(bad({ keys: { k1 }, current: 'k9' }).message).toContain('current key id "k9" is not one of keys');
    expect(isFlowError(bad(undefined), 'INVALID_ARGUMENT')).toBe(true);
  });

  it('accepts a Map, copies the keys (a later change to the buffer changes nothing) and never prints them', () => {
    const key = Buffer.from(k1);
    const s = encryptedSerializer({ keys: new Map([['m', key]]), current: 'm' });
    const text = s.serialize('v', at);
    key.fill(0);
    expect(s.deserialize(text, at)).toBe('v');
    expect(inspect(s, { depth: 10, showHidden: true })).not.toContain(k1.toString('hex').slice(0, 16));
  });
});
