import type { BenchContext } from '../context.js';
import { jsonBytes, sizedState } from '../data.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, type Row, section } from '../report/section.js';
import { median } from '../stats.js';
import { type BackendSuite, SIDE_NAMES, type SubjectFactory } from '../stores/types.js';
import { inParallel, withSubjects } from './open-subjects.js';

/** Puts in flight while seeding: enough to keep a server busy, few enough not to crowd the machine. */
const SEED_WIDTH = 8;

/**
 * Seeds a fresh store with `threads` × `steps` checkpoints of `state`, then times `listThreads()` over all of
 * them `reps` times after one untimed call; resolves with the median in ms. The store is removed afterwards,
 * so at most one large store exists at a time.
 */
async function timeListing(
  factory: SubjectFactory,
  where: string,
  threads: number,
  steps: number,
  states: readonly object[],
  reps: number,
): Promise<number> {
  return withSubjects([factory], async ([o]) => {
    const subject = o!.subject;
    const list = subject.listThreads!;
    await inParallel(threads, SEED_WIDTH, async (t) => {
      for (let step = 0; step < steps; step++) await subject.put(`w4-${t}`, step, states[step] as never);
    });
    const found = await list();
    if (found !== threads) throw new Error(`${where}: listed ${found} threads, expected ${threads}`);
    const ms: number[] = [];
    for (let r = 0; r < reps; r++) {
      const start = performance.now();
      await list();
      ms.push(performance.now() - start);
    }
    return median(ms);
  });
}

/**
 * W4: `listThreads()` over `w4-threads` threads × `w4-steps` steps, once with small and once with large
 * states. The two times must be about equal: a listing that reads state grows with it. The raw floor is a
 * scan of the thread ids with their latest step. LangGraph.js has no such call.
 */
export async function listThreads(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const sz = ctx.options.sizes;
  const threads = sz['w4-threads'];
  const steps = sz['w4-steps'];
  const reps = sz['w4-reps'];
  const sizes = [sz['w4-small-kb'], sz['w4-large-kb']] as const;
  const statesOf = (kb: number) =>
    Array.from({ length: steps }, (_, step) => sizedState(kb * 1024, step, 1024));
  const kbOf = (kb: number) => Math.round(jsonBytes(statesOf(kb)[0]) / 1024);
  const [small, large] = sizes.map(kbOf) as [number, number];
  const detail = `${threads.toLocaleString('en-US')} threads × ${steps} steps; median of ${reps} calls after one untimed.`;
  const sections = sizes.map((_, k) =>
    section({
      id: k === 0 ? 'w4-small' : 'w4-large',
      title: `W4 listThreads(), ${k === 0 ? small : large} KB states`,
      detail,
      columns:
        k === 0
          ? [{ key: 'ms', header: 'ms' }]
          : [
              { key: 'ms', header: 'ms' },
              { key: 'vsSmall', header: `vs ${small} KB`, digits: 2 },
            ],
      ratioOf: 'ms',
      better: 'lower',
      notes:
        k === 0
          ? [
              'LangGraph.js is not measured: BaseCheckpointSaver has no thread listing (its list() without a ' +
                'thread reads every checkpoint, state included).',
            ]
          : [
              `"vs ${small} KB" is this time over the same store's time with ${small} KB states (1.00× = unaffected).`,
            ],
    }),
  );
  for (const suite of suites) {
    await rec.guard('w4', suite.id, async () => {
      const factories = suite.subjects.filter((f) => f.side !== 'langgraph');
      const rows: Row[][] = [[], []];
      for (const [k, kb] of sizes.entries()) {
        const states = statesOf(kb);
        for (const factory of factories) {
          const where = `W4 ${suite.id} ${SIDE_NAMES[factory.side]} ${kbOf(kb)} KB`;
          progress(`${where}: seeding ${(threads * steps).toLocaleString('en-US')} checkpoints`);
          const ms = await timeListing(factory, where, threads, steps, states, reps);
          progress(`${where}: listThreads ${ms.toFixed(2)} ms`);
          rows[k]!.push({ backend: suite.id, side: factory.side, label: factory.label, values: { ms } });
        }
      }
      for (const [i, row] of rows[1]!.entries()) {
        const smallMs = rows[0]![i]?.values.ms;
        row.values.vsSmall = smallMs && row.values.ms !== undefined ? row.values.ms / smallMs : undefined;
      }
      sections[0]!.rows.push(...rows[0]!);
      sections[1]!.rows.push(...rows[1]!);
    });
  }
  rec.add(...sections.map(fillRatios));
}
