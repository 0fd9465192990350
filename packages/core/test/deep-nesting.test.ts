import { describe, expect, it } from 'vitest';
import { isFlowError, jsonSerializer } from '../src/index.js';

function nest(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++)
    value = i % 3 === 0 ? { a: value } : i % 3 === 1 ? [value] : new Map([['k', value]]);
  return value;
}

describe('deeply nested states', () => {
  it('1,000 levels of objects, arrays and Maps round-trip exactly', () => {
    const state = nest(1000);
    expect(jsonSerializer.deserialize(jsonSerializer.serialize(state))).toEqual(state);
  });

  it('a value nested past what the stack allows is a SerializationError that says so, not a RangeError', () => {
    let error: unknown;
    try {
      jsonSerializer.serialize(nest(100_000));
    } catch (e) {
      error = e;
    }
    expect(isFlowError(error, 'SERIALIZATION'), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/nested too deeply/);
    expect((error as Error).cause).toBeInstanceOf(RangeError);
  });
});
