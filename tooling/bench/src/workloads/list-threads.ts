import type { BenchContext } from '../context.js';
import { type ChatState, jsonBytes, sizedState } from '../data.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, type Row, section } from '../report/section.js';
import { median, rotate } from '../stats.js';
import { type BackendSuite, SIDE_NAMES, type StoreSubject, type SubjectFactory } from '../stores/types.js';
import { inParallel, type Opened, withSubjects } from './open-subjects.js';

/** Puts in flight while seeding: enough to keep a server busy, few enough not to crowd the machine. */
const SEED_WIDTH = 8;

/** Above this many bytes per store, Redis (which holds it all in RAM) gets one store at a time. */
const REDIS_SIDE_BY_SIDE_BYTES = 1 << 30;

interface Plan {
  threads: number;
  steps: number;
  states: readonly ChatState[];
  reps: number;
}

/** Fills a store with the plan's checkpoints and checks that `listThreads()` sees every thread. */
async function seed(subject: StoreSubject, plan: Plan, where: string): Promise<void> {
  progress(`${where}: seeding ${(plan.threads * plan.steps).toLocaleString('en-US')} checkpoints`);
  await inParallel(plan.threads, SEED_WIDTH, async (t) => {
    for (let step = 0; step < plan.steps; step++) await subject.put(`w4-${t}`, step, plan.states[step]!);
  });
  const found = await subject.listThreads!();
  if (found !== plan.threads) throw new Error(`${where}: listed ${found} threads, expected ${plan.threads}`);
}

/** Times `reps` calls on each store, the stores taking turns call by call; the median ms of each. */
async function timeInTurns(opened: readonly Opened[], reps: number): Promise<number[]> {
  const ms = opened.map(() => [] as number[]);
  const order = opened.map((_, i) => i);
  for (let r = 0; r < reps; r++) {
    for (const i of rotate(order, r)) {
      const start = performance.now();
      await opened[i]!.subject.listThreads!();
      ms[i]!.push(performance.now() - start);
    }
  }
  return ms.map(median);
}

/**
 * Measures the stores of one backend at one state size. Normally every store is seeded first and the calls
 * then alternate; a store too big to keep two of in Redis's memory is seeded, timed and removed one at a time.
 */
async function measure(
  factories: readonly SubjectFactory[],
  plan: Plan,
  where: (f: SubjectFactory) => string,
  sideBySide: boolean,
): Promise<number[]> {
  if (sideBySide) {
    return withSubjects(factories, async (opened) => {
      for (const o of opened) await seed(o.subject, plan, where(o.factory));
      return timeInTurns(opened, plan.reps);
    });
  }
  const out: number[] = [];
  for (const factory of factories) {
    out.push(
      await withSubjects([factory], async (opened) => {
        await seed(opened[0]!.subject, plan, where(factory));
        const [ms] = await timeInTurns(opened, plan.reps);
        return ms!;
      }),
    );
  }
  return out;
}

/**
 * W4: `listThreads()` over `w4-threads` threads × `w4-steps` steps, once with small and once with large
 * states. The two times must be about equal: a listing that reads state grows with it. The raw floor is a
 * scan of the thread ids with their latest step. LangGraph.js has no such call. Each store gets one untimed
 * call (the count check) before `w4-reps` timed ones; the median is reported.
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
  const detail =
    `${threads.toLocaleString('en-US')} threads × ${steps} steps; median of ${reps} calls after one untimed, ` +
    'the stores taking turns.';
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
        const plan: Plan = { threads, steps, states: statesOf(kb), reps };
        const bytes = threads * steps * jsonBytes(plan.states[0]);
        const sideBySide = suite.id !== 'redis' || bytes <= REDIS_SIDE_BY_SIDE_BYTES;
        if (!sideBySide)
          sections[k]!.notes.push(
            `${suite.id}: one store at a time (each holds ${(bytes / 2 ** 30).toFixed(1)} GB in RAM).`,
          );
        const label = `W4 ${suite.id} ${kbOf(kb)} KB`;
        const ms = await measure(factories, plan, (f) => `${label} ${SIDE_NAMES[f.side]}`, sideBySide);
        progress(
          `${label}: ${factories.map((f, i) => `${SIDE_NAMES[f.side]} ${ms[i]!.toFixed(2)} ms`).join(' · ')}`,
        );
        for (const [i, factory] of factories.entries()) {
          rows[k]!.push({
            backend: suite.id,
            side: factory.side,
            label: factory.label,
            values: { ms: ms[i] },
          });
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
