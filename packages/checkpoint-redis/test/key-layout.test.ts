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
const kinds = ['checkpoints', 'steps', 'head', 'incoming'] as const;
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
function keysOf(prefix: string, thread: string): Array<[string, string]> {
  const layout = keyLayout(prefix);
  return [
    ...kinds.map((k): [string, string] => [layout[k](thread), `${prefix} ${k} ${thread}`]),
    ...steps.map((n): [string, string] => [layout.state(thread, n), `${prefix} state ${n} ${thread}`]),
    ...indexKeys(layout).map((key): [string, string] => [key, `${prefix} ${key}`]),
    [layout.format, `${prefix} format`],
  ];
}

/** Fails when one key belongs to two different things of (p1, t1) and (p2, t2). */
function expectDistinctKeys(p1: string, t1: string, p2: string, t2: string): void {
  const owner = new Map<string, string>();
  for (const [key, what] of [...keysOf(p1, t1), ...keysOf(p2, t2)]) {
    const previous = owner.get(key);
    if (previous !== undefined) expect(previous).toBe(what);
    owner.set(key, what);
  }
}

describe('key layout', () => {
  it('never gives two different (prefix, kind, thread) the same key', () => {
    fc.assert(fc.property(prefixArb, threadArb, prefixArb, threadArb, expectDistinctKeys), { numRuns: 500 });
  });

  it('never gives two different (prefix, kind, thread) the same key, for prefixes and ids built to line up', () => {
    fc.assert(
      fc.property(relatedArb, ({ p1, t1, p2, t2 }) => expectDistinctKeys(p1, t1, p2, t2)),
      { numRuns: 3_000 },
    );
  });

  it('keeps the cases a naive prefix:kind:thread layout would mix up apart', () => {
    const a = keyLayout('a');
    const b = keyLayout('a:cp');
    expect(a.checkpoints('x:cp|y')).not.toBe(b.checkpoints('y'));
    expect(a.checkpoints('all')).not.toBe(a.index.all);
    expect(a.head('x')).toBe('a:head|x');
    expect(b.checkpoints('y')).toBe('a:cp:cp|y');
    // A state key's step is digits, so the `|` after it ends it: thread "1|x" at step 2 is not "x" at step 21.
    expect(a.state('x', 21)).toBe('a:st|21|x');
    expect(a.state('1|x', 2)).toBe('a:st|2|1|x');
    expect(a.state('x', 21)).not.toBe(a.state('1|x', 2));
  });
});
