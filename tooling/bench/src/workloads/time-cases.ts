import { median, rotate } from '../stats.js';
import { type Counters, since, snapshot } from '../stores/counters.js';

/** A timed case: one whole run on a thread named by the caller, and the store's counters if it counts. */
export interface TimedCase {
  run: (thread: string) => Promise<void>;
  counters: Counters | undefined;
}

/** Medians per super-step of one case: wall µs, this process's CPU µs, statements (when counted). */
export interface CaseTiming<C extends TimedCase> {
  c: C;
  us: number;
  cpu: number;
  stmts: number | undefined;
}

/**
 * `warmUps` untimed runs per case, then `runs` rounds in rotating order, so every case meets the machine's
 * moods alike. CPU time leaves out the waits on fsync and the network (the same statements for every case)
 * and is far less moved by a busy machine than wall time. Threads are named `<tag>-<case>-<round>`.
 */
export async function timeCases<C extends TimedCase>(
  cases: readonly C[],
  steps: number,
  runs: number,
  tag: string,
  warmUps = 1,
): Promise<CaseTiming<C>[]> {
  for (let w = 0; w < warmUps; w++) {
    for (const [i, c] of cases.entries()) await c.run(`${tag}-${i}-warm-${w}`);
  }
  const wall = cases.map(() => [] as number[]);
  const cpu = cases.map(() => [] as number[]);
  const before = cases.map((c) => c.counters && snapshot(c.counters));
  for (let r = 0; r < runs; r++) {
    for (const i of rotate(
      cases.map((_, j) => j),
      r,
    )) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await (cases[i] as C).run(`${tag}-${i}-${r}`);
      wall[i]?.push(((performance.now() - t0) * 1000) / steps);
      const used = process.cpuUsage(cpu0);
      cpu[i]?.push((used.user + used.system) / steps);
    }
  }
  return cases.map((c, i) => ({
    c,
    us: median(wall[i] as number[]),
    cpu: median(cpu[i] as number[]),
    stmts: c.counters && since(c.counters, before[i] as Counters).commands / (runs * steps),
  }));
}
