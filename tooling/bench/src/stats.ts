/**
 * The `p`-th percentile (0–100) of `values`, by the nearest-rank method; `NaN` for no values.
 *
 * @example
 * percentile([1, 2, 3, 4], 50); // 2
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The median of `values` (the mean of the two middle ones for an even count); `NaN` for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Latencies of one kind of operation, in milliseconds, and the time they add up to. */
export class Samples {
  readonly ms: number[] = [];

  /** Runs `fn`, records how long it took, and returns its result. */
  async time<T>(fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    const result = await fn();
    this.ms.push(performance.now() - start);
    return result;
  }

  get count(): number {
    return this.ms.length;
  }

  /** Total time in milliseconds. */
  get totalMs(): number {
    let sum = 0;
    for (const v of this.ms) sum += v;
    return sum;
  }

  /** Operations per second over the time spent in them. */
  get perSecond(): number {
    return this.count === 0 ? Number.NaN : (this.count * 1000) / this.totalMs;
  }

  p(percent: number): number {
    return percentile(this.ms, percent);
  }
}

/**
 * The order the stores take turns in round `round`: rotated by one each round, so no store always goes
 * first (warm caches, a neighbour's burst of work) and noise falls on all of them alike.
 *
 * @example
 * rotate(['a', 'b', 'c'], 1); // ['b', 'c', 'a']
 */
export function rotate<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const k = ((round % items.length) + items.length) % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
