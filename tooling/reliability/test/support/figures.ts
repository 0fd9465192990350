import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where each test file leaves its figures (gitignored); the global setup clears and prints them. */
export const RESULTS_DIR = join(import.meta.dirname, '..', '..', 'results');

/** What RELIABILITY.md reports for the last run. */
export type Figure =
  | 'kills survived'
  | 'races run'
  | 'faults injected'
  | 'inputs tried'
  | 'data lost'
  // The worker tests' own: runs they drove to the end, resumes after a kill, server restarts, wall time.
  | 'runs finished'
  | 'recoveries'
  | 'restarts survived'
  | 'seconds';

export type Figures = Partial<Record<Figure, number>>;

const mine: Record<string, Figures> = {};

/**
 * Adds to this file's figures under `topic` (e.g. `crash: file`). Counted only once the work was checked,
 * so a figure never claims more than a passing assertion proved.
 */
export function count(topic: string, figure: Figure, n = 1): void {
  const figures = mine[topic] ?? {};
  mine[topic] = figures;
  figures[figure] = (figures[figure] ?? 0) + n;
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(join(RESULTS_DIR, `${process.pid}.json`), JSON.stringify(mine));
}

/** Every topic's figures of the run so far, summed over the files that reported them. */
export function collect(): Record<string, Figures> {
  const all: Record<string, Figures> = {};
  let files: string[] = [];
  try {
    files = readdirSync(RESULTS_DIR).filter((f) => /^\d+\.json$/.test(f));
  } catch {}
  for (const file of files) {
    const part = JSON.parse(readFileSync(join(RESULTS_DIR, file), 'utf8')) as Record<string, Figures>;
    for (const [topic, figures] of Object.entries(part)) {
      const into = all[topic] ?? {};
      all[topic] = into;
      for (const [k, v] of Object.entries(figures)) into[k as Figure] = (into[k as Figure] ?? 0) + v;
    }
  }
  return all;
}
