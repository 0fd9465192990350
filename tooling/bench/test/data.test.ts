import { describe, expect, it } from 'vitest';
import { growingStates, jsonBytes, makeMessage, sizedState } from '../src/data.js';

describe('bench states', () => {
  it('makes the same message for the same index, close to the asked size', () => {
    expect(makeMessage(7, 200)).toEqual(makeMessage(7, 200));
    expect(makeMessage(7, 200)).not.toEqual(makeMessage(8, 200));
    expect(Math.abs(jsonBytes(makeMessage(3, 200)) - 200)).toBeLessThanOrEqual(6);
  });

  it('grows by one message per step to about the final size', () => {
    const states = growingStates(20, 2048);
    expect(states).toHaveLength(20);
    expect(states.map((s) => s.messages.length)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const last = jsonBytes(states[19]);
    expect(last).toBeGreaterThan(1900);
    expect(last).toBeLessThan(2200);
  });

  it('sizes large states to within a few percent and changes them at every step', () => {
    const a = sizedState(256 * 1024, 0, 1024);
    const b = sizedState(256 * 1024, 1, 1024);
    expect(Math.abs(jsonBytes(a) / (256 * 1024) - 1)).toBeLessThan(0.03);
    expect(a).not.toEqual(b);
  });
});
