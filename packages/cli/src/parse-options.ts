import { isFlowError, MAX_STEP, normalizeTimestamp } from '@flow/core';
import { UsageError } from './errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+)([smhd])$/;
// A calendar date, optionally with a time and a zone. Date.parse alone accepts "1" or "May 5", which
// would silently prune against a surprising instant.
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses `--older-than`: a duration (an integer followed by `s`, `m`, `h` or `d`: `30s`, `15m`, `12h`,
 * `7d`) counted back from `now`, or an ISO-8601 date or date-time, read by core's rule for timestamps (the
 * one `prune`'s `olderThan` and a checkpoint's `ts` follow): a date-time without a zone is UTC, like every
 * `ts` @flow stores, and a date or time that does not exist (`2025-02-30`, `T24:00`) is refused, not rolled
 * over into another day as `Date.parse` would.
 *
 * @throws UsageError for anything else (`7w`, `1.5h`, `-3d`, `yesterday`, `2025-02-30`...)
 * @example parseOlderThan('7d', Date.parse('2025-01-08T00:00:00Z')) // 2025-01-01T00:00:00.000Z
 */
export function parseOlderThan(value: string, now: number): Date {
  const duration = DURATION.exec(value);
  if (duration) {
    const date = new Date(now - Number(duration[1]) * UNIT_MS[duration[2]!]!);
    if (Number.isNaN(date.getTime())) throw new UsageError(`--older-than ${value} reaches before any date`);
    return date;
  }
  if (ISO.test(value)) {
    try {
      return new Date(normalizeTimestamp(value, '--older-than'));
    } catch (error) {
      if (isFlowError(error, 'INVALID_ARGUMENT')) throw new UsageError(error.message);
      throw error;
    }
  }
  throw new UsageError(
    `--older-than must be a duration (an integer followed by s, m, h or d: 30s, 15m, 12h, 7d) or an ISO-8601 date, got "${value}"`,
  );
}

/** Parses a whole number from `min` to `max` given on the command line, for `--limit`, `--step` and the like. */
export function parseInteger(value: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`${flag} must be from ${min} to ${max}, got ${value}`);
  return n;
}

/** Parses a step number (0 to 2^31 − 1). */
export function parseStep(value: string, flag: string): number {
  return parseInteger(value, flag, 0, MAX_STEP);
}

/** Parses `--redact k1,k2` into key names (blank entries dropped). */
export function parseKeyList(value: string): string[] {
  return value
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
}
