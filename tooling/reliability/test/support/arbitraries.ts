import fc from 'fast-check';

/** A valid thread id per docs/record.md: 1–512 UTF-16 units, no U+0000, well-formed Unicode. */
export function isValidId(id: string): boolean {
  return id.length >= 1 && id.length <= 512 && !id.includes('\u0000') && id.isWellFormed();
}

/** Pieces that break naive storage: path syntax, escapes, glob and SQL characters, look-alike letters. */
const HOSTILE_PIECES = [
  '/',
  '\\',
  '.',
  '..',
  '%',
  '%2F',
  '%2f',
  '%00',
  ' ',
  "'",
  '"',
  '`',
  '*',
  '?',
  '[',
  ']',
  '{',
  '}',
  ':',
  ';',
  '\n',
  '\r',
  '\t',
  'a',
  'A',
  'é',
  'e\u0301',
  'ß',
  'İ',
  '😀',
  '\u202E',
  '\uFEFF',
  '\uFFFF',
  '~',
  'CON',
  '_',
  '-',
  '$',
  "'; DROP TABLE x; --",
];

/** Valid thread ids: any Unicode, hostile compositions, and lengths up to the 512 limit. */
export const validId: fc.Arbitrary<string> = fc
  .oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
    fc.string({ unit: fc.constantFrom(...HOSTILE_PIECES), minLength: 1, maxLength: 12 }),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
    fc.integer({ min: 500, max: 512 }).map((n) => 'x'.repeat(n - 1) + '/'),
    fc.integer({ min: 1, max: 256 }).map((n) => '😀'.repeat(n)),
  )
  .map((id) => id.replaceAll('\u0000', '\u0001'))
  .filter(isValidId);

/** Values a thread id must not be: wrong type, empty, too long, holding U+0000 or a lone surrogate. */
export const invalidId: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(''),
  fc.integer({ min: 513, max: 2000 }).map((n) => 'x'.repeat(n)),
  fc.string({ minLength: 0, maxLength: 20 }).map((s) => `${s}\u0000${s}`),
  fc
    .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF'))
    .map(([s, half]) => s + half),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
);

/** Object keys, including the ones a decoder could trip on. */
const key = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('__proto__', 'constructor', 'prototype', '$flow', 'v', 'toString', '', 'a\u0000b'),
);

/**
 * Leaves of a state: every kind docs/record.md says round-trips, including the tricky values (-0, NaN,
 * ±Infinity, U+0000 in strings, big BigInts, far-off dates, empty and binary bytes) and objects that look
 * like the serializer's own tags.
 */
const leaf: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt({ min: -(2n ** 128n), max: 2n ** 128n }),
  fc.date({ noInvalidDate: true }),
  fc.uint8Array({ maxLength: 24 }),
  fc.record({
    $flow: fc.constantFrom('date', 'bigint', 'map', 'set', 'obj', 'str', 'num', 'undef', 'bytes', 'x'),
    v: fc.string(),
  }),
);

/** States: nested arrays, plain objects, Maps (any keys) and Sets of the leaves above. */
export const state: fc.Arbitrary<unknown> = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('tree'), { maxLength: 5 }),
    fc.dictionary(key, tie('tree'), { maxKeys: 5 }),
    fc.array(fc.tuple(tie('tree'), tie('tree')), { maxLength: 4 }).map((entries) => new Map(entries)),
    fc.array(tie('tree'), { maxLength: 4 }).map((items) => new Set(items)),
  ),
})).tree;

/** Something the serializer must refuse, and where to hide it in an otherwise valid state. */
const poison: fc.Arbitrary<() => unknown> = fc.constantFrom(
  () => () => 1,
  () => Symbol('s'),
  () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    return loop;
  },
  () => new WeakMap(),
  () => /regexp/,
  () => new Int16Array(2),
  () => Promise.resolve(1),
  () => ({ [Symbol('key')]: 1 }),
);

/** A state that holds one unserializable value somewhere inside a valid one. */
export const unserializableState: fc.Arbitrary<unknown> = fc
  .tuple(state, poison, fc.constantFrom('object', 'array', 'map', 'set', 'root'))
  .map(([inner, make, where]) => {
    const bad = make();
    switch (where) {
      case 'object':
        return { inner, deep: { bad } };
      case 'array':
        return [inner, [bad]];
      case 'map':
        return new Map<unknown, unknown>([
          ['inner', inner],
          ['bad', bad],
        ]);
      case 'set':
        return new Set([inner, bad]);
      default:
        return bad;
    }
  });

/**
 * Pairs of distinct valid ids that naive storage would fold into one: percent-encoding, case folding,
 * Unicode normalisation, replacing unsafe characters, trimming, cutting to a prefix, glob characters.
 */
export const collidingIds: fc.Arbitrary<[string, string]> = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...HOSTILE_PIECES, 'b', 'C', 'z', '0'), minLength: 1, maxLength: 10 }),
    fc.constantFrom(
      (s: string) => encodeURIComponent(s),
      (s: string) => s.toUpperCase(),
      (s: string) => s.toLowerCase(),
      (s: string) => s.normalize('NFC'),
      (s: string) => s.normalize('NFD'),
      (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_'),
      (s: string) => s.trim(),
      (s: string) => `${s}.`,
      (s: string) => `${s} `,
      (s: string) => s.replaceAll('/', '%2F'),
      (s: string) => s.replaceAll('%2F', '/'),
      (s: string) => s.replace(/[*?[\]]/g, '\\$&'),
      (s: string) => `${s}x`,
    ),
    // Both behind the same 40 characters, so a store that keeps only a readable prefix of an id folds them.
    fc.boolean(),
  )
  .map(([base, fold, long]): [string, string] => {
    const lead = long ? 'p'.repeat(40) : '';
    return [lead + base, lead + fold(base)];
  })
  .filter(([a, b]) => a !== b && isValidId(a) && isValidId(b));
