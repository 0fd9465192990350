import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoNow } from '../src/iso-now.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('isoNow', () => {
  it('is toISOString() of Date.now(), across milliseconds, seconds, negative and extended years', () => {
    const instants = [0, 1, 9, 10, 99, 100, 999, 1000, 1001, -1, -999, -1000, -1001, 1_764_633_599_999];
    // The last millisecond of year 9999 and the first of 10000 (`+010000-...`), the first of year 0 and before.
    instants.push(
      253_402_300_799_999,
      253_402_300_800_000,
      -62_167_219_200_000,
      -62_167_219_200_001,
      8.64e15,
    );
    const now = vi.spyOn(Date, 'now');
    // Each instant twice, and in an order where consecutive calls fall in the same and in another second.
    for (const t of [...instants, ...instants.toReversed(), 5_000, 5_001, 5_999, 6_000, 5_999]) {
      now.mockReturnValue(t);
      expect(isoNow(), String(t)).toBe(new Date(t).toISOString());
    }
  });
});
