import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { parseInteger, parseKeyList, parseOlderThan } from '../src/parse-options.js';

const NOW = Date.parse('2025-01-08T12:00:00.000Z');

describe('parseOlderThan', () => {
  it('counts a duration back from now', () => {
    expect(parseOlderThan('30s', NOW).toISOString()).toBe('2025-01-08T11:59:30.000Z');
    expect(parseOlderThan('15m', NOW).toISOString()).toBe('2025-01-08T11:45:00.000Z');
    expect(parseOlderThan('12h', NOW).toISOString()).toBe('2025-01-08T00:00:00.000Z');
    expect(parseOlderThan('7d', NOW).toISOString()).toBe('2025-01-01T12:00:00.000Z');
    expect(parseOlderThan('0s', NOW).getTime()).toBe(NOW);
  });

  it('reads ISO-8601 dates and date-times, zone-less ones as UTC', () => {
    expect(parseOlderThan('2025-01-01', NOW).toISOString()).toBe('2025-01-01T00:00:00.000Z');
    expect(parseOlderThan('2025-01-01T10:00', NOW).toISOString()).toBe('2025-01-01T10:00:00.000Z');
    expect(parseOlderThan('2025-01-01T10:00:00.5+02:00', NOW).toISOString()).toBe('2025-01-01T08:00:00.500Z');
    expect(parseOlderThan('2025-01-01T10:00:00Z', NOW).toISOString()).toBe('2025-01-01T10:00:00.000Z');
  });

  it('keeps the real edges of the calendar: 29 February of a leap year, year 0, offsets applied after the check', () => {
    expect(parseOlderThan('2024-02-29', NOW).toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseOlderThan('0000-02-29T00:00Z', NOW).toISOString()).toBe('0000-02-29T00:00:00.000Z');
    expect(parseOlderThan('2025-02-28T23:30:00-05:30', NOW).toISOString()).toBe('2025-03-01T05:00:00.000Z');
    expect(parseOlderThan('2025-01-01 00:00:00.999', NOW).toISOString()).toBe('2025-01-01T00:00:00.999Z');
  });

  it('rejects anything else as a usage error', () => {
    for (const bad of [
      '7',
      '7w',
      '1.5h',
      '-3d',
      '3 d',
      'd',
      '7D',
      'yesterday',
      '2025-13-45',
      '2025-02-30',
      '2023-02-29',
      '2025-04-31T12:00',
      '2025-01-01T24:00:00Z',
      '2025-01-01T23:60',
      '2025-01-01T23:59:60Z',
      '1',
      '',
      '99999999999999999d',
    ]) {
      expect(() => parseOlderThan(bad, NOW), bad).toThrow(UsageError);
    }
  });
});

describe('parseInteger and parseKeyList', () => {
  it('accepts whole numbers in range only', () => {
    expect(parseInteger('42', '--limit', 1, 100)).toBe(42);
    for (const bad of ['0', '101', '-1', '1.0', '1e2', 'abc', '']) {
      expect(() => parseInteger(bad, '--limit', 1, 100), bad).toThrow(UsageError);
    }
  });

  it('splits a comma list and drops blanks', () => {
    expect(parseKeyList('password, apiKey,,token ')).toEqual(['password', 'apiKey', 'token']);
  });
});
