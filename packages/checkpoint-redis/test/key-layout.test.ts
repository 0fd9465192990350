import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexKeys, keyLayout } from '../src/keys.js';

const prefixArb = fc.stringMatching(/^[A-Za-z0-9_:.|-]{1,64}$/).filter((p) => !p.includes('|'));
// Thread ids biased towards the characters that take part in the layout.
const threadArb = fc.oneof(
  fc.string({
    minLength: 1,
    maxLength: 20,
    unit: fc.constantFrom(':', '|', 'c', 'p', 's', 't', '1', '2', 'x', '{', '}', '*'),
  }),
  fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' }),
);
const kinds = ['checkpoints', 'steps', 'head', 'incoming', 'writeSteps', 'lease'] as const;
const steps = [0, 1, 12, 2 ** 31 - 1];
// Pairs built to line up: the second prefix extends the first, the first thread ends with the second.
const piece = fc
  .array(fc.constantFrom(':', '|', 'cp', 'st', 'in', '1', '12', 'steps', 'head', 'idx', 'all', 'x'), {
    maxLength: 3,
  })
  .map((parts) => parts.join(''));
const relatedArb = fc
  .tuple(prefixArb, piece, piece, threadArb)
  .map(([p1, extra, lead, t2]) => ({ p1, t1: lead + t2, p2: p1 + extra.replaceAll('|', ''), t2 }));

/** Every key a (prefix, thread) pair owns, tagged with what it is. */
function keysOf(prefix: string, thread: string, cluster = false): Array<[string, string]> {
  const layout = keyLayout(prefix, { cluster });
  return [
    ...kinds.map((k): [string, string] => [layout[k](thread), `${prefix} ${k} ${thread}`]),
    ...steps.map((n): [string, string] => [layout.state(thread, n), `${prefix} state ${n} ${thread}`]),
    ...steps.map((n): [string, string] => [layout.writes(thread, n), `${prefix} writes ${n} ${thread}`]),
    ...indexKeys(layout, thread).map((key): [string, string] => [key, `${prefix} ${key}`]),
    [layout.format, `${prefix} format`],
  ];
}

/** What Redis Cluster hashes: the text between the first `{` and the next `}`, when not empty; else all. */
function hashedPart(key: string): string {
  const open = key.indexOf('{');
  const close = open === -1 ? -1 : key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/** Fails when one key belongs to two different things of (p1, t1) and (p2, t2). */
function expectDistinctKeys(p1: string, t1: string, p2: string, t2: string, cluster = false): void {
  const owner = new Map<string, string>();
  for (const [key, what] of [...keysOf(p1, t1, cluster), ...keysOf(p2, t2, cluster)]) {
    const previous = owner.get(key);
    if (previous !== undefined) expect(previous).toBe(what);
    owner.set(key, what);
  }
}

describe('key layout', () => {
  it('never gives two different (prefix, kind, thread) the same key', () => {
    fc.assert(
      fc.property(prefixArb, threadArb, prefixArb, threadArb, (p1, t1, p2, t2) =>
        expectDistinctKeys(p1, t1, p2, t2),
      ),
      { numRuns: 500 },
    );
  });

  it('never gives two different (prefix, kind, thread) the same key, for prefixes and ids built to line up', () => {
    fc.assert(
      fc.property(relatedArb, ({ p1, t1, p2, t2 }) => expectDistinctKeys(p1, t1, p2, t2)),
      { numRuns: 3_000 },
    );
  });

  it('on a cluster too', () => {
    fc.assert(
      fc.property(prefixArb, threadArb, prefixArb, threadArb, (p1, t1, p2, t2) =>
        expectDistinctKeys(p1, t1, p2, t2, true),
      ),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(relatedArb, ({ p1, t1, p2, t2 }) => expectDistinctKeys(p1, t1, p2, t2, true)),
      { numRuns: 1_000 },
    );
  });

  it("on a cluster, puts every key of a thread and its bucket's indexes in one hash slot", () => {
    fc.assert(
      fc.property(prefixArb, threadArb, (prefix, thread) => {
        const layout = keyLayout(prefix, { cluster: true });
        const tags = keysOf(prefix, thread, true)
          .map(([key]) => key)
          .filter((key) => key !== layout.format)
          .map(hashedPart);
        expect(new Set(tags)).toEqual(new Set([`${prefix}#${layout.bucketOf(thread)}`]));
        // The keys Lua builds from the prefixes land there too.
        expect(hashedPart(`${layout.statePrefix(thread)}3|${thread}`)).toBe(tags[0]);
        expect(hashedPart(`${layout.headPrefix(layout.bucketOf(thread))}${thread}`)).toBe(tags[0]);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps the cases a naive prefix:kind:thread layout would mix up apart', () => {
    const a = keyLayout('a');
    const b = keyLayout('a:cp');
    expect(a.checkpoints('x:cp|y')).not.toBe(b.checkpoints('y'));
    expect(a.checkpoints('all')).not.toBe(a.index(0).all);
    expect(a.head('x')).toBe('a:head|x');
    expect(b.checkpoints('y')).toBe('a:cp:cp|y');
    // A state key's step is digits, so the `|` after it ends it: thread "1|x" at step 2 is not "x" at step 21.
    expect(a.state('x', 21)).toBe('a:st|21|x');
    expect(a.state('1|x', 2)).toBe('a:st|2|1|x');
    expect(a.state('x', 21)).not.toBe(a.state('1|x', 2));
  });
});
