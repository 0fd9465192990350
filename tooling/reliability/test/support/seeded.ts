/** Random choices that a seed repeats: `FLOW_RELIABILITY_SEED=<n>` gives a failing run's choices again. */
export interface Seeded {
  readonly seed: number;
  /** A number in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
}

/**
 * A seeded generator (mulberry32: small, fast, good enough to choose kill moments), printing its seed under
 * `label`. The seed repeats the test's choices (which worker, how long to wait), not the machine's timing.
 */
export function seeded(label: string): Seeded {
  const given = process.env.FLOW_RELIABILITY_SEED;
  const seed = given ? Number(given) >>> 0 : Math.floor(Math.random() * 2 ** 32);
  console.log(`[${label}] seed ${seed} (FLOW_RELIABILITY_SEED=${seed} repeats these choices)`);
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return { seed, next, int, pick: (items) => items[int(0, items.length - 1)]! };
}
