import { describe, expect, it } from 'vitest';
import { isFlowError, jsonSerializer, SerializationError, toJsonValue } from '../src/index.js';

const roundTrip = (value: unknown) => jsonSerializer.deserialize(jsonSerializer.serialize(value));

describe('jsonSerializer', () => {
  it('round-trips plain JSON values', () => {
    const value = { a: 1, b: 'x', c: [true, null, { d: 2.5 }], e: {} };
    expect(roundTrip(value)).toEqual(value);
  });

  it('round-trips the types JSON cannot hold, nested in any combination', () => {
    const value = {
      date: new Date('2024-01-02T03:04:05.678Z'),
      big: 12345678901234567890n,
      map: new Map<unknown, unknown>([
        ['k', new Set([1, 2n])],
        [{ o: 1 }, [new Date(0)]],
      ]),
      set: new Set(['a', new Map([[1, 2]])]),
      bytes: new Uint8Array([0, 1, 255]),
      nums: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0],
      undef: undefined,
      arr: [undefined, 1],
    };
    const back = roundTrip(value) as typeof value;
    expect(back).toEqual(value);
    expect(back.big).toBe(12345678901234567890n);
    expect(back.map).toBeInstanceOf(Map);
    expect(back.bytes).toBeInstanceOf(Uint8Array);
    expect(Object.is(back.nums[3], -0)).toBe(true);
    expect('undef' in back).toBe(true);
  });

  it('keeps an invalid Date invalid', () => {
    const back = roundTrip(new Date(Number.NaN)) as Date;
    expect(back).toBeInstanceOf(Date);
    expect(Number.isNaN(back.getTime())).toBe(true);
  });

  it('brings a Buffer back as bytes', () => {
    const back = roundTrip({ b: Buffer.from('hello') }) as { b: Uint8Array };
    expect(Buffer.from(back.b).toString()).toBe('hello');
  });

  it('round-trips strings and keys holding U+0000, and never emits U+0000', () => {
    const value = { 'k\u0000ey': 'a\u0000b', list: ['\u0000', '\u0000\u0000x'] };
    const text = jsonSerializer.serialize(value);
    expect(text.includes('\u0000')).toBe(false);
    expect(text.includes('\\u0000')).toBe(false);
    expect(roundTrip(value)).toEqual(value);
  });

  it('round-trips objects that look like its own tags', () => {
    const value = { $flow: 'date', v: '2020-01-01T00:00:00.000Z', nested: [{ $flow: 'bigint', v: '1' }] };
    expect(roundTrip(value)).toEqual(value);
    expect(roundTrip({ __proto__x: 1, ['__proto__']: { p: 1 } })).toEqual({
      __proto__x: 1,
      ['__proto__']: { p: 1 },
    });
  });

  it('does not change the value it serializes', () => {
    const value = { d: new Date(0), list: [1n, { s: new Set([1]) }] };
    const before = structuredClone(value);
    jsonSerializer.serialize(value);
    expect(value).toEqual(before);
  });

  // Plain data is handed to JSON.stringify as it is; anything beneath it that is not goes through the full walk.
  it('hands plain data back as it is, and still tags or refuses what is nested deep in it', () => {
    const plain = {
      a: [1, 'x', { b: null, c: [true, 2.5] }],
      d: Object.assign(Object.create(null), { e: 1 }),
    };
    expect(toJsonValue(plain)).toBe(plain);
    expect(jsonSerializer.serialize(plain)).toBe(JSON.stringify(plain));
    const hidden = { deep: [{ ok: 1 }] };
    Object.defineProperty(hidden.deep[0], Symbol('k'), { value: 1, enumerable: false });
    expect(jsonSerializer.serialize(hidden)).toBe('{"deep":[{"ok":1}]}');
    const deep = (leaf: unknown) => ({ a: [{ b: 'x' }, { c: [1, leaf] }] });
    for (const leaf of [undefined, -0, Number.NaN, 1n, new Date(0), new Map(), 'a\u0000', '\ud800']) {
      expect(toJsonValue(deep(leaf)), String(leaf)).not.toBe(deep(leaf));
      expect(roundTrip(deep(leaf))).toEqual(deep(leaf));
    }
    for (const key of ['$flow', 'k\u0000', 'k\udc00'])
      expect(roundTrip(deep({ [key]: 1 }))).toEqual(deep({ [key]: 1 }));
    // A field that changes, or a key that needs the tag, after fields that did not: every field is kept.
    const mixed = { x: 1, y: ['a'], z: undefined, w: 2, $flow: 3, v: 4 };
    expect(roundTrip(mixed)).toEqual(mixed);
    expect(roundTrip({ x: 1, y: ['a'], z: undefined, w: 2 })).toEqual({ x: 1, y: ['a'], z: undefined, w: 2 });
    expect(() => jsonSerializer.serialize(deep({ [Symbol('s')]: 1 }))).toThrow(
      /symbol keys at state\.a\[1\]\.c\[1\]$/,
    );
    expect(() => jsonSerializer.serialize(deep(() => 1))).toThrow(/function at state\.a\[1\]\.c\[1\]$/);
  });

  it('reads own keys only, even when Object.prototype has an enumerable one', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.injected = () => 1;
    try {
      expect(jsonSerializer.serialize({ a: [{ b: 1 }], c: new Date(0) })).toBe(
        '{"a":[{"b":1}],"c":{"$flow":"date","v":"1970-01-01T00:00:00.000Z"}}',
      );
      expect(jsonSerializer.serialize({ a: [{ b: 1 }] })).toBe('{"a":[{"b":1}]}');
    } finally {
      delete proto.injected;
    }
  });

  it('decodes own keys only, even when Object.prototype has an enumerable one', () => {
    const text = jsonSerializer.serialize({ a: [{ b: 1 }], c: new Date(0) });
    const proto = Object.prototype as Record<string, unknown>;
    proto.injected = 1;
    try {
      const back = jsonSerializer.deserialize(text) as Record<string, unknown>;
      // An inherited key copied onto the decoded objects would become own, and be stored by the next put.
      expect(Object.keys(back)).toEqual(['a', 'c']);
      expect(Object.keys((back.a as object[])[0]!)).toEqual(['b']);
      expect((back.c as Date).getTime()).toBe(0);
    } finally {
      delete proto.injected;
    }
  });

  it('stores shared references twice instead of calling them cycles', () => {
    const shared = { x: 1 };
    expect(roundTrip({ a: shared, b: shared })).toEqual({ a: { x: 1 }, b: { x: 1 } });
  });

  it.each([
    ['a function', { f: () => 1 }, 'state.f'],
    ['a symbol', { s: Symbol('x') }, 'state.s'],
    ['a function in a Map', { m: new Map([['k', () => 1]]) }, 'state.m'],
  ])('rejects %s with SerializationError naming the path', (_what, value, path) => {
    let error: unknown;
    try {
      jsonSerializer.serialize(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SerializationError);
    expect(isFlowError(error, 'SERIALIZATION')).toBe(true);
    expect((error as Error).message).toContain(path);
  });

  it('rejects a cycle', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = { back: a };
    expect(() => jsonSerializer.serialize(a)).toThrow(
      /cycle \(the value contains itself\) at state\.self\.back$/,
    );
  });

  // The first walk builds no paths and tracks no ancestors; a failure is walked again to name its place.
  it.each([
    [
      'a cycle through a Map and an array',
      () => {
        const list: unknown[] = [];
        list.push(new Map([['k', list]]));
        return { list };
      },
      /cycle .* at state\.list\[0\]<value 0>$/,
    ],
    [
      'an enumerable symbol key',
      () => ({ deep: [{ [Symbol('k')]: 1 }] }),
      /symbol keys at state\.deep\[0\]$/,
    ],
    ['a function in a Set', () => ({ s: new Set([1, () => 2]) }), /function at state\.s<item 1>$/],
    [
      'a WeakMap in a class instance',
      () => ({
        c: new (class {
          w = new WeakMap();
        })(),
      }),
      /WeakMap at state\.c\.w$/,
    ],
  ])('names the place of %s', (_what, make, message) => {
    expect(() => jsonSerializer.serialize(make())).toThrow(message);
  });
});

describe('jsonSerializer and lone surrogates', () => {
  it('round-trips strings and keys holding half of a surrogate pair, emitting only well-formed JSON', () => {
    const half = '\u{1F600}'.slice(0, 1);
    const value = { text: `cut ${half}`, [`k${half}`]: [half, '\udc00x'], ok: '\u{1F600}' };
    const text = jsonSerializer.serialize(value);
    expect(text.isWellFormed()).toBe(true);
    expect(text).not.toMatch(/\\ud[89a-f]/i);
    expect(roundTrip(value)).toEqual(value);
  });
});
