import type { BenchContext } from '../context.js';
import { type ChatState, jsonBytes, sizedState } from '../data.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, section } from '../report/section.js';
import { median, rotate } from '../stats.js';
import { type BackendSuite, SIDE_NAMES, type StoreSubject, type SubjectFactory } from '../stores/types.js';
import { inParallel, withSubjects } from './open-subjects.js';

/** Puts in flight while seeding: enough to keep a server busy, few enough not to crowd the machine. */
const SEED_WIDTH = 8;

/** Above this many bytes per store, Redis (which holds it all in RAM) gets one store at a time. */
const REDIS_SIDE_BY_SIDE_BYTES = 1 << 30;

interface Plan {
  threads: number;
  steps: number;
  /** The state size asked for, for progress lines. */
  kb: number;
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

/** Times `reps` calls on each store, the stores taking turns call by call; every sample, in ms, per store. */
async function timeInTurns(stores: readonly StoreSubject[], reps: number): Promise<number[][]> {
  const ms = stores.map(() => [] as number[]);
  const order = stores.map((_, i) => i);
  for (let r = 0; r < reps; r++) {
    for (const i of rotate(order, r)) {
      const start = performance.now();
      await stores[i]!.listThreads!();
      ms[i]!.push(performance.now() - start);
    }
  }
  return ms;
}

interface Measured {
  /** Median ms of each side's small store. */
  small: number[];
  /** Median ms of each side's large store. */
  large: number[];
  /** Each side's large over small, both timed in the same turns. */
  vsSmall: number[];
}

/**
 * Measures one backend's sides at both sizes. The small stores live throughout; the large ones join them
 * (all at once, or one at a time where two would not fit in Redis's RAM) and every store alive takes turns,
 * so a large store is always compared with small ones timed in the same moments, on the same machine load.
 */
async function measure(
  factories: readonly SubjectFactory[],
  small: Plan,
  large: Plan,
  where: (f: SubjectFactory, kb: number) => string,
  sideBySide: boolean,
): Promise<Measured> {
  return withSubjects(factories, async (smallStores) => {
    for (const o of smallStores) await seed(o.subject, small, where(o.factory, small.kb));
    const smallSamples = factories.map(() => [] as number[]);
    const out: Measured = { small: [], large: [], vsSmall: [] };
    const batches = sideBySide ? [factories.map((_, i) => i)] : factories.map((_, i) => [i]);
    for (const batch of batches) {
      await withSubjects(
        batch.map((i) => factories[i]!),
        async (largeStores) => {
          for (const o of largeStores) await seed(o.subject, large, where(o.factory, large.kb));
          const stores = [...smallStores, ...largeStores].map((o) => o.subject);
          const samples = await timeInTurns(stores, small.reps);
          for (const [i, s] of smallSamples.entries()) s.push(...samples[i]!);
          for (const [k, i] of batch.entries()) {
            out.large[i] = median(samples[factories.length + k]!);
            out.vsSmall[i] = out.large[i]! / median(samples[i]!);
          }
        },
      );
    }
    out.small = smallSamples.map(median);
    return out;
  });
}

/**
 * W4: `listThreads()` over `w4-threads` threads × `w4-steps` steps, once with small and once with large
 * states. The two times must be about equal: a listing that reads state grows with it. The raw floor is a
 * scan of the thread ids with their latest step: the suite's `listingFloor` where it has one (a thread index
 * its puts keep), else its put floor's own scan. LangGraph.js has no such call. Each store gets one untimed
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
  const [smallKb, largeKb] = sizes.map(kbOf) as [number, number];
  const detail =
    `${threads.toLocaleString('en-US')} threads × ${steps} steps; median of ${reps} calls after one untimed, ` +
    'the stores of both sizes taking turns.';
  const sections = sizes.map((_, k) =>
    section({
      id: k === 0 ? 'w4-small' : 'w4-large',
      title: `W4 listThreads(), ${k === 0 ? smallKb : largeKb} KB states`,
      detail,
      columns:
        k === 0
          ? [{ key: 'ms', header: 'ms' }]
          : [
              { key: 'ms', header: 'ms' },
              { key: 'vsSmall', header: `vs ${smallKb} KB`, digits: 2 },
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
              `"vs ${smallKb} KB" is this time over the same side's time with ${smallKb} KB states, measured in ` +
                'the same turns (1.00 = unaffected by state size).',
            ],
    }),
  );
  for (const suite of suites) {
    await rec.guard('w4', suite.id, async () => {
      const factories = suite.subjects
        .filter((f) => f.side !== 'langgraph')
        .map((f) => (f.side === 'raw' && suite.listingFloor) || f);
      const plan = (kb: number): Plan => ({ threads, steps, kb, states: statesOf(kb), reps });
      const small = plan(sizes[0]);
      const large = plan(sizes[1]);
      const largeBytes = threads * steps * jsonBytes(large.states[0]);
      const sideBySide = suite.id !== 'redis' || largeBytes <= REDIS_SIDE_BY_SIDE_BYTES;
      if (!sideBySide) {
        sections[1]!.notes.push(
          `${suite.id}: one large store at a time (each holds ${(largeBytes / 2 ** 30).toFixed(1)} GB in RAM), ` +
            'so its @flow/raw ratio compares stores timed minutes apart; "vs" is still timed in the same turns.',
        );
      }
      const where = (f: SubjectFactory, kb: number) => `W4 ${suite.id} ${kbOf(kb)} KB ${SIDE_NAMES[f.side]}`;
      const m = await measure(factories, small, large, where, sideBySide);
      const line = (ms: number[]) =>
        factories.map((f, i) => `${SIDE_NAMES[f.side]} ${ms[i]!.toFixed(2)} ms`).join(' · ');
      progress(`W4 ${suite.id}: ${smallKb} KB ${line(m.small)}; ${largeKb} KB ${line(m.large)}`);
      for (const [i, factory] of factories.entries()) {
        const base = { backend: suite.id, side: factory.side, label: factory.label };
        sections[0]!.rows.push({ ...base, values: { ms: m.small[i] } });
        sections[1]!.rows.push({ ...base, values: { ms: m.large[i], vsSmall: m.vsSmall[i] } });
      }
    });
  }
  rec.add(...sections.map(fillRatios));
}
