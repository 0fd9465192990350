import { describe, expect, it } from 'vitest';
import { Checkpoint, encodeRecord, isFlowError, jsonSerializer } from '../src/index.js';

const metaText = (meta: Record<string, unknown>) =>
  encodeRecord(new Checkpoint({ thread: 't', step: 0, state: 1, meta }), jsonSerializer).meta;

/** `meta` text is reused for the same frozen object of primitives, and never for anything that can change. */
describe('encodeRecord meta', () => {
  it('encodes each frozen object of primitives as its own text, the same one again as before', () => {
    const two = Object.freeze({ stateVersion: 2 });
    const three = Object.freeze({ stateVersion: 3 });
    expect([metaText(two), metaText(two), metaText(three), metaText(two)]).toEqual([
      '{"stateVersion":2}',
      '{"stateVersion":2}',
      '{"stateVersion":3}',
      '{"stateVersion":2}',
    ]);
    expect(metaText({})).toBe('{}');
  });

  it('encodes what an object holds now when it can change: not frozen, a nested object, a getter', () => {
    const open: Record<string, unknown> = { stateVersion: 1 };
    expect(metaText(open)).toBe('{"stateVersion":1}');
    open.stateVersion = 2;
    expect(metaText(open)).toBe('{"stateVersion":2}');

    const inner = { n: 1 };
    const nested = Object.freeze({ inner });
    expect(metaText(nested)).toBe('{"inner":{"n":1}}');
    inner.n = 2;
    expect(metaText(nested)).toBe('{"inner":{"n":2}}');

    let n = 0;
    const getter = Object.freeze(
      Object.defineProperty({}, 'n', {
        get: () => ++n,
        enumerable: true,
      }),
    ) as Record<string, unknown>;
    expect(metaText(getter)).toBe('{"n":1}');
    expect(metaText(getter)).toBe('{"n":2}');
  });

  it('a meta JSON cannot hold (a BigInt, a cycle) is a SerializationError naming meta, not a bare TypeError', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    for (const meta of [{ stateVersion: 1n }, Object.freeze({ n: 2n }), cyclic]) {
      let thrown: unknown;
      try {
        metaText(meta);
      } catch (error) {
        thrown = error;
      }
      expect(isFlowError(thrown, 'SERIALIZATION'), String(thrown)).toBe(true);
      expect((thrown as Error).message).toMatch(/meta of thread "t" step 0 is not plain JSON/);
    }
  });
});
