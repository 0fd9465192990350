import { type ChildProcess, spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { threadName } from '../src/thread-name.js';
import { cp, useTempBase } from './support/files.js';

const RACERS = 8;
/** Steps each racer fights for at once, per kind of put: many windows for a broken lock to show. */
const ROUNDS = 8;
const CHILD = join(import.meta.dirname, 'fixtures', 'race-child.mjs');

interface Outcome {
  won?: boolean;
  revision?: number;
  actual?: number;
  error?: string;
}
interface Report {
  id: string;
  update: Outcome[];
  create: Outcome[];
}

const t = useTempBase();

/** Starts a racer; resolves once it is ready, with a promise of its report. */
function start(id: string): Promise<{ child: ChildProcess; report: Promise<Report> }> {
  const child = spawn(process.execPath, [CHILD, t.store, 'raced', id, String(ROUNDS)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    const report = new Promise<Report>((done) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line);
        if (line === 'ready') resolve({ child, report });
      });
      child.once('close', () => done(JSON.parse(lines.at(-1) ?? '{}')));
    });
  });
}

it(`of ${RACERS} processes racing conditional puts on one (thread, step), exactly one wins`, async () => {
  const seed = new FileCheckpointer(t.store);
  for (let step = 0; step < ROUNDS; step++) await seed.put(cp('raced', step, { winner: 'seed' }));
  const racers = await Promise.all(Array.from({ length: RACERS }, (_, i) => start(`racer-${i}`)));
  for (const { child } of racers) child.stdin!.end('go\n');
  const reports = await Promise.all(racers.map((r) => r.report));

  for (const kind of ['update', 'create'] as const) {
    for (let round = 0; round < ROUNDS; round++) {
      const step = kind === 'update' ? round : ROUNDS + round;
      const outcomes = reports.map((r) => ({ id: r.id, ...r[kind][round]! }));
      expect(outcomes.filter((o) => o.error !== undefined)).toEqual([]);
      const winners = outcomes.filter((o) => o.won);
      expect(
        winners.map((w) => w.id),
        `${kind} of step ${step}`,
      ).toHaveLength(1);
      const stored = await seed.get('raced', step);
      expect(stored?.state).toEqual({ winner: winners[0]!.id });
      expect(stored?.revision).toBe(kind === 'update' ? 2 : 1);
      // Every loser saw the winner's write, never a half-done one.
      for (const o of outcomes.filter((x) => !x.won)) expect(o.actual).toBe(stored?.revision);
    }
  }
  expect((await seed.listThreads()).map((i) => i.latestStep)).toEqual([2 * ROUNDS - 1]);
  expect(await readdir(join(t.store, 'locks'))).toEqual([]);
  const files = await readdir(join(t.store, 'threads', threadName('raced')));
  expect(files.filter((f) => f.startsWith('.'))).toEqual([]);
  expect(files).toHaveLength(2 * ROUNDS + 1);
  await seed.close();
}, 60_000);
