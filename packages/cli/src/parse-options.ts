import { MAX_STEP } from '@flow/core';
import { UsageError } from './errors.js';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+)([smhd])$/;
// A calendar date, optionally with a time and a zone. Date.parse alone accepts "1" or "May 5", which
// would silently prune against a surprising instant.
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses `--older-than`: a duration (an integer followed by `s`, `m`, `h` or `d`: `30s`, `15m`, `12h`,
 * `7d`) counted back from `now`, or an ISO-8601 date or date-time. A date-time without a zone is read as
 * UTC, like every `ts` @flow stores.
 *
 * @throws UsageError for anything else (`7w`, `1.5h`, `-3d`, `yesterday`...)
 * @example parseOlderThan('7d', Date.parse('2025-01-08T00:00:00Z')) // 2025-01-01T00:00:00.000Z
 */
export function parseOlderThan(value: string, now: number): Date {
  const duration = DURATION.exec(value);
  if (duration) {
    const date = new Date(now - Number(duration[1]) * UNIT_MS[duration[2]!]!);
    if (Number.isNaN(date.getTime())) throw new UsageError(`--older-than ${value} reaches before any date`);
    return date;
  }
  const iso = ISO.exec(value);
  if (iso) {
    const hasTime = value.length > 10;
    const zoned = !hasTime || iso[1] !== undefined ? value : `${value}Z`;
    const date = new Date(zoned);
    if (!Number.isNaN(date.getTime())) return date;
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
