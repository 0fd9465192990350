import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect, type Figure, type Figures, RESULTS_DIR } from './figures.js';

const COLUMNS: Figure[] = ['kills survived', 'races run', 'faults injected', 'inputs tried', 'data lost'];
/** The worker tests' table: topics that finished runs. */
const WORKER_COLUMNS: Figure[] = [
  'runs finished',
  'kills survived',
  'restarts survived',
  'recoveries',
  'seconds',
  'data lost',
];

function table(all: Record<string, Figures>, topics: string[], columns: Figure[]): string {
  const total: Partial<Record<Figure, number>> = {};
  const lines = [`| topic | ${columns.join(' | ')} |`, `| --- |${columns.map(() => ' ---: |').join('')}`];
  for (const topic of topics) {
    const f = all[topic]!;
    for (const c of columns) total[c] = (total[c] ?? 0) + (f[c] ?? 0);
    lines.push(`| ${topic} | ${columns.map((c) => f[c] ?? 0).join(' | ')} |`);
  }
  lines.push(`| **total** | ${columns.map((c) => `**${total[c] ?? 0}**`).join(' | ')} |`);
  return lines.join('\n');
}

/** vitest global setup: clears the figures of an earlier run, and prints this run's at the end. */
export default function setup(): () => void {
  rmSync(RESULTS_DIR, { recursive: true, force: true });
  return () => {
    const all = collect();
    const topics = Object.keys(all).sort();
    if (topics.length === 0) return;
    const workers = topics.filter((t) => all[t]!['runs finished'] !== undefined);
    const others = topics.filter((t) => !workers.includes(t));
    const tables = [
      ...(others.length > 0 ? [table(all, others, COLUMNS)] : []),
      ...(workers.length > 0 ? [table(all, workers, WORKER_COLUMNS)] : []),
    ].join('\n\n');
    writeFileSync(join(RESULTS_DIR, 'summary.md'), `${tables}\n`);
    console.log(`\nreliability figures of this run:\n${tables}\n`);
  };
}
