import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { deepEqual, sameCheckpoint } from '../src/commands/same-checkpoint.js';

describe('deepEqual', () => {
  it('ignores object key order but keeps exact types', () => {
    expect(deepEqual({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(deepEqual(new Map([['a', 1]]), [['a', 1]])).toBe(false);
    expect(deepEqual(1n, '1')).toBe(false);
    expect(deepEqual(-0, 0)).toBe(false);
    expect(deepEqual(Number.NaN, Number.NaN)).toBe(true);
    expect(deepEqual(new Set([1, 2]), new Set([1, 2]))).toBe(true);
    expect(deepEqual(new Set([1, 2]), new Set([1, 3]))).toBe(false);
    expect(deepEqual(new Date(5), new Date(5))).toBe(true);
    expect(deepEqual(new Date(5), new Date(6))).toBe(false);
    expect(deepEqual(Buffer.from([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(deepEqual(new Uint8Array([1, 2]), new Uint8Array([1]))).toBe(false);
    expect(deepEqual({ a: undefined }, {})).toBe(false);
    expect(deepEqual({ a: 1 }, { b: 1 })).toBe(false);
    // Strings are told apart by length too, and long ones (hashed apart from the batch) by content.
    expect(deepEqual(['ab', 'c'], ['a', 'bc'])).toBe(false);
    expect(deepEqual({ a: 'x'.repeat(70_000) }, { a: 'x'.repeat(70_000) })).toBe(true);
    expect(deepEqual({ a: 'x'.repeat(70_000) }, { a: `${'x'.repeat(69_999)}y` })).toBe(false);
    expect(deepEqual(new Map([[1, 'a']]), new Map([['1', 'a']]))).toBe(false);
  });
});

describe('sameCheckpoint', () => {
  const base = new Checkpoint({
    thread: 't',
    step: 2,
    state: { n: 1 },
    next: ['a'],
    ts: '2025-01-01T00:00:00.000Z',
    revision: 1,
  });

  it('ignores the revision and compares everything else', () => {
    expect(sameCheckpoint(base, base.with({ revision: 7 }))).toBe(true);
    expect(sameCheckpoint(base, base.with({ state: { n: 2 } }))).toBe(false);
    expect(sameCheckpoint(base, base.with({ next: ['b'] }))).toBe(false);
    expect(sameCheckpoint(base, base.with({ ts: '2025-01-01T00:00:00.001Z' }))).toBe(false);
    expect(sameCheckpoint(base, base.with({ interrupted: true }))).toBe(false);
    expect(sameCheckpoint(base, base.with({ interruptPayload: 'q' }))).toBe(false);
    expect(sameCheckpoint(base, base.with({ error: { node: 'a', message: 'boom' } }))).toBe(false);
    expect(sameCheckpoint(base, base.with({ meta: { stateVersion: 2 } }))).toBe(false);
  });
});
