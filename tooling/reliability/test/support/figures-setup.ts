import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect, type Figure, RESULTS_DIR } from './figures.js';

const COLUMNS: Figure[] = ['kills survived', 'races run', 'faults injected', 'inputs tried', 'data lost'];

/** vitest global setup: clears the figures of an earlier run, and prints this run's at the end. */
export default function setup(): () => void {
  rmSync(RESULTS_DIR, { recursive: true, force: true });
  return () => {
    const all = collect();
    const topics = Object.keys(all).sort();
    if (topics.length === 0) return;
    const total: Partial<Record<Figure, number>> = {};
    const lines = [`| topic | ${COLUMNS.join(' | ')} |`, `| --- |${COLUMNS.map(() => ' ---: |').join('')}`];
    for (const topic of topics) {
      const f = all[topic]!;
      for (const c of COLUMNS) total[c] = (total[c] ?? 0) + (f[c] ?? 0);
      lines.push(`| ${topic} | ${COLUMNS.map((c) => f[c] ?? 0).join(' | ')} |`);
    }
    lines.push(`| **total** | ${COLUMNS.map((c) => `**${total[c] ?? 0}**`).join(' | ')} |`);
    const table = lines.join('\n');
    writeFileSync(join(RESULTS_DIR, 'summary.md'), `${table}\n`);
    console.log(`\nreliability figures of this run:\n${table}\n`);
  };
}
