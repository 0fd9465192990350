import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, normalizeTimestamp } from '../src/index.js';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** What `normalizeTimestamp` must return: the `Date` round trip, the rule its fast path skips. */
function viaDate(text: string): string | 'invalid' {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? 'invalid' : date.toISOString();
}

function normalized(text: string): string | 'invalid' {
  try {
    return normalizeTimestamp(text, 'ts');
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgumentError);
    return 'invalid';
  }
}

describe('normalizeTimestamp', () => {
  it('agrees with the Date round trip on every day of leap, common and century years, and on out-of-range fields', () => {
    let checked = 0;
    for (const year of [0, 1900, 1970, 2000, 2023, 2024, 2100, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          for (const [hour, minute, second] of [
            [0, 0, 0],
            [23, 59, 59],
            [24, 0, 0],
            [12, 60, 0],
            [12, 0, 60],
          ]) {
            const text = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour!, 2)}:${pad(minute!, 2)}:${pad(second!, 2)}.123Z`;
            expect(normalized(text), text).toBe(viaDate(text));
            checked++;
          }
        }
      }
    }
    expect(checked).toBe(8 * 14 * 33 * 5);
  }, 60_000); // ~3 million Date round trips: seconds on a loaded 2-core machine

  it('rewrites other forms to the canonical one', () => {
    expect(normalizeTimestamp('2024-02-29T10:00:00Z', 'ts')).toBe('2024-02-29T10:00:00.000Z');
    expect(normalizeTimestamp('2024-02-29T12:00:00.000+02:00', 'ts')).toBe('2024-02-29T10:00:00.000Z');
    expect(normalizeTimestamp(new Date(0), 'ts')).toBe('1970-01-01T00:00:00.000Z');
    expect(normalized('2023-02-29T00:00:00.000Z')).toBe(viaDate('2023-02-29T00:00:00.000Z'));
  });

  it('reads a date-time without a zone as UTC, whatever the process time zone', () => {
    const before = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      expect(new Date('2026-12-02T15:00').toISOString()).toBe('2026-12-02T20:00:00.000Z'); // Date alone: local
      expect(normalizeTimestamp('2026-12-02T15:00', 'ts')).toBe('2026-12-02T15:00:00.000Z');
      expect(normalizeTimestamp('2026-12-02 15:00:30.5', 'ts')).toBe('2026-12-02T15:00:30.500Z');
      expect(normalizeTimestamp('2026-12-02T15:00-05:00', 'ts')).toBe('2026-12-02T20:00:00.000Z');
      expect(normalizeTimestamp('2026-12-02', 'ts')).toBe('2026-12-02T00:00:00.000Z');
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });
});
