import { describe, expect, it } from 'vitest';
import { toPlainJson } from '../src/plain-json.js';

describe('toPlainJson', () => {
  it('renders every type the serializer round-trips as plain JSON', () => {
    const state = {
      at: new Date('2025-01-02T03:04:05.678Z'),
      bad: new Date(Number.NaN),
      big: 12345678901234567890n,
      map: new Map<unknown, unknown>([
        ['a', 1],
        [2n, new Set([1])],
      ]),
      set: new Set(['x', 'y']),
      bytes: new Uint8Array([1, 2, 3, 255]),
      buf: Buffer.from('hi'),
      nums: [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, 1.5],
      gone: undefined,
      holes: [undefined, null],
      text: 'a\u0000b',
      nested: { $flow: 'obj', deep: [{ d: new Date(0) }] },
    };
    expect(toPlainJson(state)).toEqual({
      at: '2025-01-02T03:04:05.678Z',
      bad: null,
      big: '12345678901234567890',
      map: [
        ['a', 1],
        ['2', [1]],
      ],
      set: ['x', 'y'],
      bytes: 'AQID/w==',
      buf: 'aGk=',
      nums: ['NaN', 'Infinity', '-Infinity', 0, 1.5],
      holes: [null, null],
      text: 'a\u0000b',
      nested: { $flow: 'obj', deep: [{ d: '1970-01-01T00:00:00.000Z' }] },
    });
    expect(Object.hasOwn(toPlainJson(state) as object, 'gone')).toBe(false);
    expect(Object.is((toPlainJson(-0) as number) + 0, 0)).toBe(true);
  });

  it('gives null for undefined at the top and keeps __proto__ as an ordinary key', () => {
    expect(toPlainJson(undefined)).toBeNull();
    const out = toPlainJson(JSON.parse('{"__proto__": {"x": 1}}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":1}}');
  });

  it('shares references but rejects a cycle', () => {
    const shared = { a: 1 };
    expect(toPlainJson([shared, shared])).toEqual([{ a: 1 }, { a: 1 }]);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toPlainJson(cyclic)).toThrow(/cycle/);
  });
});
