import { afterEach, describe, expect, it, vi } from 'vitest';
import { canonicalEpochMsOf, epochMsOf, isoNow } from '../src/iso-now.js';

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

describe('epochMsOf', () => {
  it("is Date.parse of isoNow()'s last text, and of any other text", () => {
    const now = vi.spyOn(Date, 'now');
    for (const t of [0, 999, 1000, -1, 1_764_633_599_999, 253_402_300_800_000, -62_167_219_200_001]) {
      now.mockReturnValue(t);
      const text = isoNow();
      expect(epochMsOf(text), String(t)).toBe(t);
      // A text isoNow did not make last is parsed: an earlier stamp, another instant's, or not a date at all.
      expect(epochMsOf(new Date(t + 1).toISOString())).toBe(t + 1);
      expect(epochMsOf('2024-01-02T03:04:05.678Z')).toBe(Date.parse('2024-01-02T03:04:05.678Z'));
      expect(epochMsOf('not a date')).toBeNaN();
    }
  });
});

describe('canonicalEpochMsOf', () => {
  it("is the instant of isoNow()'s last text and of any toISOString() text, undefined for any other", () => {
    const now = vi.spyOn(Date, 'now');
    for (const t of [0, 999, 1000, -1, 1_764_633_599_999, 253_402_300_800_000, -62_167_219_200_001]) {
      now.mockReturnValue(t);
      expect(canonicalEpochMsOf(isoNow()), String(t)).toBe(t);
      expect(canonicalEpochMsOf(new Date(t + 1).toISOString())).toBe(t + 1);
    }
    // Texts Date.parse reads whose instant prints otherwise: a backend must keep them as they are.
    for (const ts of ['2024-01-02T03:04:05Z', '2024-01-02T03:04:05.678+00:00', '2024-01-02', 'not a date']) {
      expect(canonicalEpochMsOf(ts), ts).toBeUndefined();
    }
  });
});
