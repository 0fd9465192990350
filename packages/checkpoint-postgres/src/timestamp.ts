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
