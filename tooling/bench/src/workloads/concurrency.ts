import type { BenchContext } from '../context.js';
import { growingStates } from '../data.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, section } from '../report/section.js';
import { rotate } from '../stats.js';
import { type BackendSuite, SIDE_NAMES } from '../stores/types.js';
import { withSubjects } from './open-subjects.js';

/**
 * Concurrency: `conc-runs` runs in parallel, each putting `conc-steps` W1 states to its own thread one after
 * another, on SQLite, Postgres and Redis. Total puts/s over the wall time; the stores take turns round by
 * round, so each sees the same machine. On SQLite the raw floor is one transaction per put (its own fsync);
 * @flow's puts of runs that arrive together share a commit.
 */
export async function concurrency(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const sz = ctx.options.sizes;
  const runs = sz['conc-runs'];
  const steps = sz['conc-steps'];
  const rounds = sz['conc-rounds'];
  const states = growingStates(steps, sz['w1-kb'] * 1024);
  const conc = section({
    id: 'conc',
    title: `Concurrency: ${runs} runs in parallel`,
    detail:
      `${runs} runs at once, each ${steps} sequential puts of the W1 state to its own thread; ${rounds} ` +
      `round(s) per store. SQLite sides have one connection (the raw floor: one transaction and fsync per put); ` +
      `Postgres pools hold ${sz['pg-pool']} connections on every side; Redis sides have one client.`,
    columns: [{ key: 'rate', header: 'puts/s' }],
    ratioOf: 'rate',
    better: 'higher',
  });
  for (const suite of suites) {
    if (suite.id === 'memory') continue;
    await rec.guard('conc', suite.id, () =>
      withSubjects(suite.subjects, async (opened) => {
        const wall = opened.map(() => 0);
        const order = opened.map((_, i) => i);
        for (let r = 0; r < rounds; r++) {
          for (const i of rotate(order, r)) {
            const subject = opened[i]!.subject;
            const start = performance.now();
            await Promise.all(
              Array.from({ length: runs }, async (_, run) => {
                for (let step = 0; step < steps; step++)
                  await subject.put(`c${r}-${run}`, step, states[step]!);
              }),
            );
            wall[i]! += performance.now() - start;
          }
        }
        const rate = (i: number) => (rounds * runs * steps * 1000) / wall[i]!;
        for (const [i, o] of opened.entries()) {
          conc.rows.push({
            backend: suite.id,
            side: o.factory.side,
            label: o.factory.label,
            values: { rate: rate(i) },
          });
        }
        progress(
          `conc ${suite.id}: ${opened.map((o, i) => `${SIDE_NAMES[o.factory.side]} ${Math.round(rate(i))}`).join(' · ')} puts/s`,
        );
      }),
    );
  }
  rec.add(fillRatios(conc));
}
