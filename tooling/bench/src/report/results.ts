import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sizes } from '../options.js';
import type { MachineInfo } from './machine.js';
import type { Failure } from './recorder.js';
import type { Section } from './section.js';
import type { TargetResult } from './targets.js';

/** Everything one run produced, as written to the results directory. */
export interface BenchResult {
  startedAt: string;
  mode: 'full' | 'quick';
  machine: MachineInfo;
  sizes: Sizes;
  notes: string[];
  sections: Section[];
  targets: TargetResult[];
  failures: Failure[];
}

/**
 * Writes `<time>-<mode>.json` (the numbers) and `<time>-<mode>.md` (the printed report) to `dir`;
 * resolves with the JSON file's path.
 */
export function writeResult(dir: string, result: BenchResult, markdown: string): string {
  mkdirSync(dir, { recursive: true });
  const stamp = result.startedAt.replace(/[:.]/g, '-');
  const base = join(dir, `${stamp}-${result.mode}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(`${base}.md`, `${markdown}\n`);
  return `${base}.json`;
}
