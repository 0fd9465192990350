import { InvalidArgumentError } from './errors.js';
import { THREAD_STATUSES, type ThreadStatus } from './status.js';

export type { ThreadStatus };

/** The largest step a checkpoint may carry: 2^31 − 1. */
export const MAX_STEP = 2 ** 31 - 1;
/** The longest thread id, in JS string length. */
export const MAX_THREAD_LENGTH = 512;

/** A short, safe rendering of a wrong value for an error message: strings quoted and cut at 40 characters. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'an array' : 'an object';
}

/**
 * Checks a thread id: a well-formed string of 1–512 UTF-16 units without U+0000.
 * Lone surrogates are rejected too: they have no UTF-8 form, so two ids could collide in storage.
 */
export function assertThreadId(thread: unknown, what = 'thread'): asserts thread is string {
  if (typeof thread !== 'string')
    throw new InvalidArgumentError(`${what} must be a string, got ${describe(thread)}`);
  if (thread.length === 0) throw new InvalidArgumentError(`${what} must not be empty`);
  if (thread.length > MAX_THREAD_LENGTH) {
    throw new InvalidArgumentError(
      `${what} is ${thread.length} characters long; the limit is ${MAX_THREAD_LENGTH}`,
    );
  }
  if (thread.includes('\u0000')) throw new InvalidArgumentError(`${what} must not contain U+0000`);
  if (!thread.isWellFormed())
    throw new InvalidArgumentError(`${what} contains a lone surrogate (not valid Unicode)`);
}

/** Checks an integer in [min, max]. */
export function assertInteger(
  value: unknown,
  what: string,
  min: number,
  max: number,
): asserts value is number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(
      `${what} must be an integer from ${min} to ${max}, got ${describe(value)}`,
    );
  }
}

/** Checks a super-step number: an integer from 0 to 2^31 − 1. */
export function assertStep(step: unknown, what = 'step'): asserts step is number {
  assertInteger(step, what, 0, MAX_STEP);
}

/** Checks `ifRevision`: undefined, or an integer ≥ 0 (0 means "only if nothing is stored"). */
export function assertIfRevision(ifRevision: unknown): asserts ifRevision is number | undefined {
  if (ifRevision !== undefined) assertInteger(ifRevision, 'ifRevision', 0, Number.MAX_SAFE_INTEGER);
}

/** Options of `list(thread, opts)`, checked. */
export interface ListOptions {
  beforeStep?: number;
  limit?: number;
}

export function assertListOptions(opts: unknown): asserts opts is ListOptions | undefined {
  if (opts === undefined) return;
  if (typeof opts !== 'object' || opts === null)
    throw new InvalidArgumentError('list options must be an object');
  const { beforeStep, limit } = opts as ListOptions;
  if (beforeStep !== undefined) assertInteger(beforeStep, 'beforeStep', 0, MAX_STEP + 1);
  if (limit !== undefined) assertInteger(limit, 'limit', 0, Number.MAX_SAFE_INTEGER);
}

const STATUSES: readonly string[] = THREAD_STATUSES;

/** Options of `listThreads(opts)`, checked. */
export interface ListThreadsOptions {
  after?: string;
  limit?: number;
  status?: ThreadStatus;
}

export function assertListThreadsOptions(opts: unknown): asserts opts is ListThreadsOptions | undefined {
  if (opts === undefined) return;
  if (typeof opts !== 'object' || opts === null)
    throw new InvalidArgumentError('listThreads options must be an object');
  const { after, limit, status } = opts as ListThreadsOptions;
  if (after !== undefined && (typeof after !== 'string' || !after.isWellFormed())) {
    throw new InvalidArgumentError(`after must be a well-formed thread id string, got ${describe(after)}`);
  }
  if (limit !== undefined) assertInteger(limit, 'limit', 0, Number.MAX_SAFE_INTEGER);
  if (status !== undefined && !STATUSES.includes(status)) {
    throw new InvalidArgumentError(`status must be one of ${STATUSES.join(', ')}; got ${describe(status)}`);
  }
}

/** Bounds of `prune()` as the caller may give them. */
export interface PruneBounds {
  beforeStep?: number;
  olderThan?: Date | string;
}

/** Bounds of `prune()` after checking: `olderThan` as a `Date#toISOString()` string. */
export interface NormalizedPruneBounds {
  beforeStep?: number;
  olderThan?: string;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
/** `Date#toISOString()`'s form for years 0–9999: `YYYY-MM-DDTHH:MM:SS.sssZ`; `d` marks a digit. */
const CANONICAL_SHAPE = 'dddd-dd-ddTdd:dd:dd.dddZ';

/** The number written by the digits at `text[from..to)` (the shape check has made sure they are digits). */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n = n * 10 + text.charCodeAt(i) - 48;
  return n;
}

/**
 * Whether `text` is already what `Date#toISOString()` would print for it, checked without building a `Date`
 * or running a regex: every stored checkpoint's `ts` passes through the `Checkpoint` constructor on read, and
 * the parse-and-format round trip showed in the profile of a fast `get` (tooling/bench's README, "Where the
 * targets stand").
 */
function isCanonicalTimestamp(text: string): boolean {
  if (text.length !== CANONICAL_SHAPE.length) return false;
  for (let i = 0; i < CANONICAL_SHAPE.length; i++) {
    const want = CANONICAL_SHAPE.charCodeAt(i);
    const code = text.charCodeAt(i);
    if (want === 100 /* d */ ? code < 48 || code > 57 : code !== want) return false;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const monthDays = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1];
  return (
    monthDays !== undefined &&
    day >= 1 &&
    day <= monthDays &&
    digits(text, 11, 13) < 24 &&
    digits(text, 14, 16) < 60 &&
    digits(text, 17, 19) < 60
  );
}

/**
 * The shape of an ISO-8601 date or date-time, as `Date` reads it: a year of four digits (or signed six, as
 * `toISOString()` writes years outside 0-9999), then optionally the month, the day, a time (`T` or a space,
 * `hh:mm`, `:ss`, a fraction) and a zone (`Z` or `±hh:mm`). `Date` alone also answers an instant for `"1"`,
 * `"May 5"` or `"garbage 2024"`, so such a typo would be stored as `ts`, or prune against a surprising time.
 */
const ISO_TIMESTAMP =
  /^(?:[+-]\d{6}|\d{4})(?:-\d{2}(?:-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)?)?$/i;

/** A date-time with no zone: `Date` would read it in the process's time zone. */
const ZONELESS_TIME = /[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/i;

/**
 * Parses a timestamp (a valid Date, or an ISO-8601 string, read as `new Date(text)` reads it) into
 * `toISOString()` form, or throws `InvalidArgumentError`. A date-time without a zone is UTC, as every stored
 * `ts` is and as `flow prune --older-than` reads it, so the same text means the same instant on every machine.
 */
export function normalizeTimestamp(value: unknown, what: string): string {
  if (typeof value === 'string' && isCanonicalTimestamp(value)) return value;
  const date =
    value instanceof Date
      ? value
      : typeof value === 'string' && ISO_TIMESTAMP.test(value)
        ? new Date(ZONELESS_TIME.test(value) ? `${value}Z` : value)
        : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError(`${what} must be a valid Date or ISO-8601 string, got ${describe(value)}`);
  }
  return date.toISOString();
}

/** Checks prune bounds: at least one of `beforeStep` / `olderThan`, each valid. */
export function normalizePruneBounds(bounds: unknown): NormalizedPruneBounds {
  if (typeof bounds !== 'object' || bounds === null) {
    throw new InvalidArgumentError('prune needs bounds: { beforeStep?: number, olderThan?: Date | string }');
  }
  const { beforeStep, olderThan } = bounds as PruneBounds;
  if (beforeStep === undefined && olderThan === undefined) {
    throw new InvalidArgumentError('prune needs at least one bound: beforeStep or olderThan');
  }
  const out: NormalizedPruneBounds = {};
  if (beforeStep !== undefined) {
    assertInteger(beforeStep, 'beforeStep', 0, MAX_STEP + 1);
    out.beforeStep = beforeStep;
  }
  if (olderThan !== undefined) out.olderThan = normalizeTimestamp(olderThan, 'olderThan');
  return out;
}
