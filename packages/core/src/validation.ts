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
 * The groups are the fields as written: year, month, day, hour, minute, second, zone.
 */
const ISO_TIMESTAMP =
  /^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?)?)?$/i;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/**
 * The first calendar or clock field of an ISO-8601 text (matched by `ISO_TIMESTAMP`) that names nothing real,
 * described for a message, or undefined when every field exists. `Date` rolls some of them over instead of
 * refusing them (`2025-02-30` reads as 2 March, `T24:00:00` as the next midnight), so a typo would be stored,
 * or pruned against, as another day. The fields are checked as written, before a zone offset is applied.
 */
function impossibleField(fields: RegExpExecArray): string | undefined {
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, zone] = fields;
  if (yearText === '-000000') return 'year -000000 (year zero is 0000 or +000000)';
  const year = Number(yearText);
  if (monthText !== undefined) {
    const month = Number(monthText);
    if (month < 1 || month > 12) return `month ${monthText} (months run 01-12)`;
    if (dayText !== undefined) {
      const day = Number(dayText);
      const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
      const monthDays = month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
      if (day < 1 || day > monthDays) {
        return `day ${dayText} (${MONTH_NAMES[month - 1]} ${yearText} has ${monthDays} days)`;
      }
    }
  }
  if (hourText !== undefined && Number(hourText) > 23) return `hour ${hourText} (hours run 00-23)`;
  if (minuteText !== undefined && Number(minuteText) > 59) return `minute ${minuteText} (minutes run 00-59)`;
  if (secondText !== undefined && Number(secondText) > 59) return `second ${secondText} (seconds run 00-59)`;
  if (zone !== undefined && zone.length > 1) {
    const offset = zone.replace(':', '');
    if (Number(offset.slice(1, 3)) > 23) return `zone offset ${zone} (offset hours run 00-23)`;
    if (Number(offset.slice(3, 5)) > 59) return `zone offset ${zone} (offset minutes run 00-59)`;
  }
  return undefined;
}

/**
 * `text` as an instant in `toISOString()` form, or throws `InvalidArgumentError` saying what it must be
 * (`expected`). The one rule for a timestamp given as text, for `ts` and `olderThan` alike.
 */
function normalizeTimestampText(text: string, what: string, expected: string): string {
  if (isCanonicalTimestamp(text)) return text;
  const fields = ISO_TIMESTAMP.exec(text);
  if (fields === null) throw new InvalidArgumentError(`${what} must be ${expected}, got ${describe(text)}`);
  const impossible = impossibleField(fields);
  if (impossible !== undefined) {
    throw new InvalidArgumentError(
      `${what} names a date or time that does not exist: ${impossible}, got ${describe(text)}`,
    );
  }
  // A date-time without a zone is UTC (`Date` would read it in the process's time zone).
  const date = new Date(fields[4] !== undefined && fields[7] === undefined ? `${text}Z` : text);
  if (Number.isNaN(date.getTime())) {
    throw new InvalidArgumentError(
      `${what} is outside the range of a JavaScript Date (-271821-04-20 to +275760-09-13), got ${describe(text)}`,
    );
  }
  return date.toISOString();
}

/**
 * Parses a timestamp (a valid Date, or an ISO-8601 string, read as `new Date(text)` reads it) into
 * `toISOString()` form, or throws `InvalidArgumentError`. A date-time without a zone is UTC, as every stored
 * `ts` is and as `flow prune --older-than` reads it, so the same text means the same instant on every machine.
 * A text whose calendar or clock fields do not exist (`2025-02-30`, `2023-02-29`, `T24:00`, minute or second
 * 60), which `Date` would roll over into another instant, is refused too.
 */
export function normalizeTimestamp(value: unknown, what: string): string {
  const expected = 'a valid Date or an ISO-8601 string';
  if (typeof value === 'string') return normalizeTimestampText(value, what, expected);
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  throw new InvalidArgumentError(
    `${what} must be ${expected}, got ${value instanceof Date ? 'an invalid Date' : describe(value)}`,
  );
}

/**
 * Checks a checkpoint's `ts`: an ISO-8601 string only (the record types it as one; a `Date` is refused, so
 * pass `date.toISOString()`), by the rules of `normalizeTimestamp`, returned in `toISOString()` form.
 */
export function normalizeTs(value: unknown, what = 'ts'): string {
  const expected = 'an ISO-8601 string (as Date#toISOString() writes)';
  if (typeof value === 'string') return normalizeTimestampText(value, what, expected);
  throw new InvalidArgumentError(
    `${what} must be ${expected}, got ${value instanceof Date ? 'a Date (pass date.toISOString())' : describe(value)}`,
  );
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
