const UNITS: ReadonlyArray<[suffix: string, ms: number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
];

/**
 * How long ago `ts` was, in the largest whole unit: `"42s ago"`, `"3m ago"`, `"5h ago"`, `"12d ago"`.
 * A time in the future (clock skew between machines) reads `"in 3m"`; an unparsable one `"?"`.
 */
export function formatAge(ts: string, now: number): string {
  const then = Date.parse(ts);
  if (Number.isNaN(then)) return '?';
  const delta = now - then;
  const abs = Math.abs(delta);
  if (abs < 1000) return 'just now';
  for (const [suffix, ms] of UNITS) {
    if (abs >= ms) {
      const amount = `${Math.floor(abs / ms)}${suffix}`;
      return delta >= 0 ? `${amount} ago` : `in ${amount}`;
    }
  }
  return 'just now';
}
