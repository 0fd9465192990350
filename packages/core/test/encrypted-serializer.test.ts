import { createHmac, randomBytes } from 'node:crypto';
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
const OPEN_TEXT = `"${ENVELOPE_PREFIX}"`;

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

describe('encryptedSerializer envelope formats', () => {
  const serializer = encryptedSerializer({ keys: { k1 }, current: 'k1' });
  const payloadAt: SerializeContext = { ...at, field: 'interruptPayload' };
  const bytesOf = (text: string) =>
    Buffer.from((JSON.parse(text) as string).slice(ENVELOPE_PREFIX.length), 'base64url');
  const textOf = (bytes: Buffer) => JSON.stringify(`${ENVELOPE_PREFIX}${bytes.toString('base64url')}`);

  it('reads envelopes of the first format, written before null markers existed (null ones included)', () => {
    // Written by the release before this one: key 'old-1' = 32 bytes of 7, every value AES-256-GCM.
    const old = encryptedSerializer({ keys: { 'old-1': Buffer.alloc(32, 7), k1 }, current: 'k1' });
    const place = { thread: 'order-1', step: 2 };
    const state =
      '"flow-enc:AQVvbGQtMb7iqxUSzaQuZLW8OcJ2MjQ13gnZhgfkopXSVjTF1YyVG3q7d0E8IF6uGZ3D7oGu9EDDuJGoqk6BDkrB8IQqKlX4xfjy1Frh_z1tqzfn-sbQtgUJz__Fte6SWk6SMY5X3JNQiKy00eKqOE4"';
    const payload = '"flow-enc:AQVvbGQtMQEKL6Qb-teLfsOdRbq9DDAUMh4KplcZscm8oT-Fe7tT"';
    const write = '"flow-enc:AQVvbGQtMQDF6cxxEdi1QMqbmiZhxhYxnz55RxZc9X6cCOuhZQJO"';
    expect(old.deserialize(state, { ...place, field: 'state' })).toEqual({
      secret: 'kept',
      n: 1,
      when: new Date(0),
    });
    expect(old.deserialize(payload, { ...place, field: 'interruptPayload' })).toBeNull();
    expect(old.deserialize(write, { ...place, field: 'write', node: 'a', key: 'k' })).toBeNull();
    expect([state, payload, write].map((t) => old.keyIdOf(t))).toEqual(['old-1', 'old-1', 'old-1']);
    // Still bound to their place, still refused when altered.
    expectCorrupt(() => old.deserialize(payload, { ...place, field: 'state' }), 'authentication failed');
    expectCorrupt(() => old.deserialize(state.replace('AQVv', 'AQVw'), { ...place, field: 'state' }));
  });

  it('reads null markers and values written by the release that introduced null markers', () => {
    // Written by that release: key 'old-2' = 32 bytes of 9. A marker's tag is deterministic, so one written now
    // must be the very same text: the header and place bytes under the tag have not changed.
    const old = encryptedSerializer({ keys: { 'old-2': Buffer.alloc(32, 9) }, current: 'old-2' });
    const place = { thread: 'order-1', step: 2 };
    const payloadPlace: SerializeContext = { ...place, field: 'interruptPayload' };
    const payload = '"flow-enc:AgVvbGQtMmV3WD8b-_TuPb02sh-A5oQ"';
    const write = '"flow-enc:AgVvbGQtMh_yEHNjsAEK_zKzesMc3Zc"';
    const state = '"flow-enc:AQVvbGQtMu9JYUOLnNduYLHL7FjO5kinMhj69gDQkiHoCmB5HSD0yaF-"';
    expect(old.deserialize(payload, payloadPlace)).toBeNull();
    expect(old.deserialize(write, { ...place, field: 'write', node: 'a', key: 'k' })).toBeNull();
    expect(old.deserialize(state, { ...place, field: 'state' })).toEqual({ n: 1 });
    expect(old.serialize(null, payloadPlace)).toBe(payload);
    expectCorrupt(() => old.deserialize(payload, { ...place, field: 'state' }), 'authentication failed');
    expectCorrupt(
      () => old.deserialize(state, { ...place, step: 3, field: 'state' }),
      'authentication failed',
    );
  });

  it('stores null as a short marker without ciphertext, bound to its place like any value', () => {
    const text = serializer.serialize(null, payloadAt);
    const bytes = bytesOf(text);
    expect(bytes[0]).toBe(2);
    expect(bytes.length).toBe(2 + 'k1'.length + 16);
    expect(serializer.deserialize(text, payloadAt)).toBeNull();
    expect(serializer.keyIdOf(text)).toBe('k1');
    // Values that are not null still go through the cipher, with a fresh IV each.
    for (const value of [0, '', false, [], {}]) {
      const encrypted = serializer.serialize(value, payloadAt);
      expect(bytesOf(encrypted)[0]).toBe(1);
      expect(serializer.deserialize(encrypted, payloadAt)).toEqual(value);
    }
    expectCorrupt(
      () => serializer.deserialize(text, { ...payloadAt, thread: 'order-43' }),
      'authentication failed',
    );
    expectCorrupt(() => serializer.deserialize(text, { ...payloadAt, step: 4 }), 'authentication failed');
    expectCorrupt(() => serializer.deserialize(text, at), 'authentication failed');
    const write: SerializeContext = { thread: 't', step: 1, field: 'write', node: 'a', key: 'b' };
    const w = serializer.serialize(null, write);
    expect(serializer.deserialize(w, write)).toBeNull();
    expectCorrupt(() => serializer.deserialize(w, { ...write, key: 'c' }), 'authentication failed');
    const impostor = encryptedSerializer({ keys: { k1: k2 }, current: 'k1' });
    expectCorrupt(() => impostor.deserialize(text, payloadAt), 'authentication failed');
    expect(
      isFlowError(
        failure(() => serializer.serialize(null)),
        'SERIALIZATION',
      ),
    ).toBe(true);
  });

  it("tells the length of an envelope's inner text without decrypting: its UTF-8 bytes, at least its length", () => {
    const long = encryptedSerializer({
      keys: { 'a-much-longer-key-id': k1 },
      current: 'a-much-longer-key-id',
    });
    for (const value of ['', 'x', { secret: SECRET }, 'é'.repeat(700), ['🙂', 'a'.repeat(2000)]]) {
      const inner = jsonSerializer.serialize(value);
      for (const s of [serializer, long]) {
        const length = s.wrappedLength!(s.serialize(value, at));
        expect(length).toBe(Buffer.byteLength(inner));
        expect(length).toBeGreaterThanOrEqual(inner.length);
      }
    }
    // Not a value envelope: its own length.
    const marker = serializer.serialize(null, payloadAt);
    expect(serializer.wrappedLength!(marker)).toBe(marker.length);
    expect(serializer.wrappedLength!('{"plain":1}')).toBe(11);
    expect(serializer.wrappedLength!(OPEN_TEXT)).toBe(OPEN_TEXT.length);
  });

  it("a null marker's tag is not an HMAC under the encryption key itself (the key is derived)", () => {
    const head = bytesOf(serializer.serialize(null, payloadAt)).subarray(0, 4);
    const aad = Buffer.concat([
      head,
      Buffer.from(JSON.stringify([at.thread, at.step, 'interruptPayload', null, null])),
    ]);
    const forged = Buffer.concat([head, createHmac('sha256', k1).update(aad).digest().subarray(0, 16)]);
    expectCorrupt(() => serializer.deserialize(textOf(forged), payloadAt), 'authentication failed');
  });

  it('rejects 1,000 random single-bit flips anywhere in a null marker', () => {
    const text = serializer.serialize(null, payloadAt);
    const bytes = Buffer.from(text);
    for (let i = 0; i < 1000; i++) {
      const copy = Buffer.from(bytes);
      const bit = Math.floor(Math.random() * copy.length * 8);
      copy[bit >> 3]! ^= 1 << (bit & 7);
      expectCorrupt(() => serializer.deserialize(copy.toString(), payloadAt));
    }
  });

  it('refuses a format byte swapped between a value and a marker, and a marker with bytes added or cut', () => {
    const marker = bytesOf(serializer.serialize(null, payloadAt));
    const value = bytesOf(serializer.serialize({ secret: SECRET }, payloadAt));
    expectCorrupt(() =>
      serializer.deserialize(textOf(Buffer.concat([Buffer.from([1]), marker.subarray(1)])), payloadAt),
    );
    expectCorrupt(() =>
      serializer.deserialize(textOf(Buffer.concat([Buffer.from([2]), value.subarray(1)])), payloadAt),
    );
    expectCorrupt(
      () => serializer.deserialize(textOf(Buffer.concat([marker, Buffer.from([0])])), payloadAt),
      'truncated',
    );
    expectCorrupt(() => serializer.deserialize(textOf(marker.subarray(0, -1)), payloadAt), 'truncated');
    expectCorrupt(
      () => serializer.deserialize(textOf(Buffer.concat([Buffer.from([3]), value.subarray(1)])), payloadAt),
      'version 3',
    );
  });

  it('accepts only the canonical base64url text: no look-alike that Node would decode to the same bytes', () => {
    // Long enough that its base64url text holds a '-' and a '_' (all but certainly).
    const value = { secret: SECRET, pad: 'x'.repeat(600) };
    const text = serializer.serialize(value, at);
    const body = (JSON.parse(text) as string).slice(ENVELOPE_PREFIX.length);
    const envelope = (b: string) => JSON.stringify(`${ENVELOPE_PREFIX}${b}`);
    const i = body.search(/[A-Za-z0-9]/);
    const char = body[i]!;
    // Node's decoder reads a non-ASCII character by its low byte, '+' and '/' as '-' and '_', and skips '=',
    // spaces and other characters outside the alphabet.
    const lookalikes = [
      String.fromCharCode(0x100 | char.charCodeAt(0)),
      `${char} `,
      `${char}=`,
      `=${char}`,
      `${char}\n`,
    ];
    for (const l of lookalikes) {
      expectCorrupt(
        () => serializer.deserialize(envelope(body.slice(0, i) + l + body.slice(i + 1)), at),
        'malformed',
      );
    }
    const dash = body.indexOf('-');
    const under = body.indexOf('_');
    if (dash >= 0)
      expectCorrupt(
        () => serializer.deserialize(envelope(`${body.slice(0, dash)}+${body.slice(dash + 1)}`), at),
        'malformed',
      );
    if (under >= 0)
      expectCorrupt(
        () => serializer.deserialize(envelope(`${body.slice(0, under)}/${body.slice(under + 1)}`), at),
        'malformed',
      );
    expectCorrupt(() => serializer.deserialize(envelope(`${body}==`), at), 'malformed');
    expectCorrupt(() => serializer.deserialize(envelope(''), at), 'malformed');
    expect(dash >= 0 && under >= 0).toBe(true);
    expect(serializer.deserialize(envelope(body), at)).toEqual(value);
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

  it('rejects an allowPlaintext that is not a boolean and an inner that is not a serializer', () => {
    for (const value of ['true', 'false', 1, 0, null]) {
      const error = bad({ keys: { k1 }, current: 'k1', allowPlaintext: value });
      expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
      expect(error.message).toContain('allowPlaintext must be true or false');
    }
    for (const inner of [5, {}, { serialize: () => '' }, 'json']) {
      expect(bad({ keys: { k1 }, current: 'k1', inner }).message).toContain('inner must be a serializer');
    }
    expect(() => encryptedSerializer({ keys: { k1 }, current: 'k1', allowPlaintext: false })).not.toThrow();
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
