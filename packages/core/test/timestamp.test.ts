import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, normalizeTimestamp } from '../src/index.js';

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** What `normalizeTimestamp` must return: the `Date` round trip, the rule its fast path skips. */
function viaDate(text: string): string | 'invalid' {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? 'invalid' : date.toISOString();
}

/**
 * What it must return for a text in `toISOString()`'s own shape: the text itself when its fields exist (the
 * `Date` round trip then prints it back unchanged), else 'invalid', where `Date` would roll it over.
 */
function strict(text: string): string | 'invalid' {
  return viaDate(text) === text ? text : 'invalid';
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
  it('keeps every existing day of leap, common and century years, and refuses fields that do not exist', () => {
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
            expect(normalized(text), text).toBe(strict(text));
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
  });

  it('refuses a date or time whose fields do not exist, which Date rolls over into another instant', () => {
    for (const [text, field] of [
      ['2025-02-30T00:00:00Z', 'day 30 (February 2025 has 28 days)'],
      ['2023-02-29T00:00:00.000Z', 'day 29 (February 2023 has 28 days)'],
      ['1900-02-29', 'day 29 (February 1900 has 28 days)'],
      ['2025-04-31', 'day 31 (April 2025 has 30 days)'],
      ['2025-04-31T10:00+05:30', 'day 31 (April 2025 has 30 days)'],
      ['2025-01-01T24:00:00Z', 'hour 24 (hours run 00-23)'],
      ['2025-01-01T24:00', 'hour 24 (hours run 00-23)'],
      ['2025-01-01T12:60:00Z', 'minute 60 (minutes run 00-59)'],
      ['2025-01-01T12:00:60Z', 'second 60 (seconds run 00-59)'],
      ['2025-13-01', 'month 13 (months run 01-12)'],
      ['2025-00', 'month 00 (months run 01-12)'],
      ['2025-01-01T00:00:00+24:00', 'zone offset +24:00 (offset hours run 00-23)'],
      ['-000000-01-01T00:00:00Z', 'year -000000 (year zero is 0000 or +000000)'],
    ] as const) {
      expect(() => normalizeTimestamp(text, 'ts'), text).toThrow(
        new InvalidArgumentError(
          `ts names a date or time that does not exist: ${field}, got ${JSON.stringify(text)}`,
        ),
      );
    }
    // Date alone reads these two as some instant: the check is core's, not Date's.
    expect(new Date('2025-02-30T00:00:00Z').toISOString()).toBe('2025-03-02T00:00:00.000Z');
    expect(new Date('2025-01-01T24:00:00Z').toISOString()).toBe('2025-01-02T00:00:00.000Z');
  });

  it('keeps the edges that do exist: 29 February of a leap year, year 0, extended years, offsets, fractions', () => {
    for (const [text, want] of [
      ['2024-02-29T10:00:00Z', '2024-02-29T10:00:00.000Z'],
      ['2000-02-29', '2000-02-29T00:00:00.000Z'],
      ['0000-02-29T00:00:00.000Z', '0000-02-29T00:00:00.000Z'],
      ['0000-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z'],
      ['+000000-01-01T00:00:00.000Z', '0000-01-01T00:00:00.000Z'],
      ['-000001-01-01T00:00:00.000Z', '-000001-01-01T00:00:00.000Z'],
      ['-000004-02-29T00:00:00.000Z', '-000004-02-29T00:00:00.000Z'],
      ['-271821-04-20T00:00:00.000Z', '-271821-04-20T00:00:00.000Z'],
      ['+275760-09-13T00:00:00.000Z', '+275760-09-13T00:00:00.000Z'],
      // The fields are checked as written: the offset carries these over a day, a month and a year.
      ['2024-02-29T23:30:00-05:30', '2024-03-01T05:00:00.000Z'],
      ['2025-01-01T00:10:00+05:30', '2024-12-31T18:40:00.000Z'],
      ['2025-12-31T23:59:59.999999-01:00', '2026-01-01T00:59:59.999Z'],
      ['2025-04-30', '2025-04-30T00:00:00.000Z'],
      ['2025-02', '2025-02-01T00:00:00.000Z'],
      ['2025', '2025-01-01T00:00:00.000Z'],
    ] as const) {
      expect(normalizeTimestamp(text, 'ts'), text).toBe(want);
    }
  });

  it('says what a timestamp must be, a Date allowed only where one is taken', () => {
    expect(() => normalizeTimestamp('May 5', 'olderThan')).toThrow(
      new InvalidArgumentError('olderThan must be a valid Date or an ISO-8601 string, got "May 5"'),
    );
    expect(() => normalizeTimestamp(new Date(Number.NaN), 'olderThan')).toThrow(
      new InvalidArgumentError('olderThan must be a valid Date or an ISO-8601 string, got an invalid Date'),
    );
    expect(() => normalizeTimestamp('+275760-09-13T00:00:00.001Z', 'ts')).toThrow(
      new InvalidArgumentError(
        'ts is outside the range of a JavaScript Date (-271821-04-20 to +275760-09-13), got "+275760-09-13T00:00:00.001Z"',
      ),
    );
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
