#!/usr/bin/env node
// Reads the output of vitest runs (from turbo or a single package) on stdin (echoing it unless --quiet), and closes
// with one line over all packages: "tests: N passed, N failed". Exits 1 when any test failed or was
// skipped (a database suite must never skip silently), or when no test ran at all.
import { createInterface } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';

const quiet = process.argv.includes('--quiet');
const totals = { passed: 0, failed: 0, skipped: 0, todo: 0 };
let suites = 0;
for await (const line of createInterface({ input: process.stdin })) {
  if (!quiet) console.log(line);
  const plain = stripVTControlCharacters(line);
  const summary = plain.match(/^(?:\S+:\s+)?\s*Tests\s+(.*)\(\d+\)\s*$/);
  if (!summary) continue;
  suites++;
  for (const [, n, kind] of summary[1].matchAll(/(\d+) (passed|failed|skipped|todo)/g))
    totals[kind] += Number(n);
}
const extra = totals.skipped + totals.todo > 0 ? `, ${totals.skipped + totals.todo} skipped` : '';
console.log(`\ntests: ${totals.passed} passed, ${totals.failed} failed${extra}`);
if (suites === 0 || totals.passed === 0) {
  console.error('no test ran');
  process.exit(1);
}
if (totals.skipped + totals.todo > 0) {
  console.error('some tests were skipped: every suite must run');
  process.exit(1);
}
process.exit(totals.failed > 0 ? 1 : 0);
