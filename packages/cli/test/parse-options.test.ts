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
