import { flowPrefix, InvalidArgumentError } from '@flow/core';

/**
 * The earliest instant a TIMESTAMPTZ holds, as `toISOString()` writes it: Postgres's "4713 BC" (the start of
 * Julian day 0, 1 January 4713 BC in the Julian calendar), which it prints as `4714-11-24 00:00:00+00 BC` in
 * its proleptic Gregorian one. JS dates reach back to year −271821; a ts before this one Postgres refuses
 * with `timestamp out of range`.
 */
export const PG_EARLIEST_TS = '-004713-11-24T00:00:00.000Z';
const PG_EARLIEST_MS = Date.parse(PG_EARLIEST_TS);

/** Whether a `toISOString()` text is before `PG_EARLIEST_TS`. Only a negative year can be: one `Date.parse` then. */
export function beforePgEarliest(iso: string): boolean {
  return iso.charCodeAt(0) === 45 /* - */ && Date.parse(iso) < PG_EARLIEST_MS;
}

/**
 * Refuses, before anything is sent, a record whose `ts` Postgres cannot store (before 4713 BC), with
 * `InvalidArgumentError`: sent, it would fail its statement with `timestamp out of range`, a `StorageError`
 * that reads like a database fault (and a group commit's statement with it, every put of which then runs
 * again alone), where other backends store the ts.
 */
export function assertPgStorableTs(ts: string, thread: string, step: number): void {
  if (!beforePgEarliest(ts)) return;
  throw new InvalidArgumentError(
    `${flowPrefix('postgres')}ts ${ts} of thread ${JSON.stringify(thread)} step ${step} is before 4713 BC: ` +
      `Postgres stores timestamps from 4713 BC (${PG_EARLIEST_TS}) on, so this backend cannot store it`,
  );
}

/**
 * Turns a `Date#toISOString()` string into text Postgres parses as the same instant. Years 0–9999 pass as
 * they are; toISOString writes others with a sign and six digits (`+010000-…`, `-000001-…`), which Postgres
 * reads as `10000-…` and `0002-… BC` (there is no year 0 in Postgres: astronomical year y ≤ 0 is 1 − y BC).
 */
export function toPgTimestamp(iso: string): string {
  const sign = iso[0];
  if (sign !== '+' && sign !== '-' && !iso.startsWith('0000-')) return iso;
  const dash = iso.indexOf('-', 1);
  const year = Number(iso.slice(0, dash));
  const rest = iso.slice(dash);
  return year > 0 ? `${year}${rest}` : `${String(1 - year).padStart(4, '0')}${rest} BC`;
}

/**
 * SQL that reads a TIMESTAMPTZ column as whole milliseconds since the epoch (a float8, exact for every instant
 * a JS Date can hold), so JS formats it with `toISOString()` and the stored ts round-trips exactly. `round`
 * matters before Postgres 14, where `extract` returns a float8 that can land a hair below the millisecond.
 */
export function epochMs(column: string): string {
  return `round(extract(epoch FROM ${column}) * 1000)::float8`;
}

/** The ISO string of a value read through `epochMs`. */
export function fromEpochMs(ms: number | string): string {
  return new Date(Number(ms)).toISOString();
}
