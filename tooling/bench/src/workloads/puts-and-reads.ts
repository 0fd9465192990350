import type { BenchContext } from '../context.js';
import { growingStates, jsonBytes } from '../data.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, type Section, section } from '../report/section.js';
import { rotate, Samples } from '../stats.js';
import { type Counters, since, snapshot } from '../stores/counters.js';
import { type BackendSuite, SIDE_NAMES } from '../stores/types.js';
import { expectMessages } from './check.js';
import { type Opened, withSubjects } from './open-subjects.js';
import { warmUpPuts } from './warm-up.js';

const latencyColumns = (rate: string) => [
  { key: 'rate', header: rate },
  { key: 'p50', header: 'p50 ms' },
  { key: 'p99', header: 'p99 ms' },
];

function latencyRow(backend: string, o: Opened, s: Samples) {
  return {
    backend,
    side: o.factory.side,
    label: o.factory.label,
    values: { rate: s.perSecond, p50: s.p(50), p99: s.p(99) },
  };
}

function perOp(c: Counters | undefined, ops: number, key: keyof Counters): number | undefined {
  return c === undefined || ops === 0 ? undefined : c[key] / ops;
}

/** Untimed reads of the warm-up thread per side before W3 (see where they are used). */
const WARM_UP_GETS = 500;
const WARM_UP_LISTS = 100;

/**
 * W1 and W3 on the same stores, as an application would use them: W1 writes `w1-threads` threads of
 * `w1-steps` steps one put at a time (the stores take turns thread by thread, in rotating order); W3 then
 * reads the latest step of every thread, and lists each thread's newest steps, `w3-rounds` times (the
 * stores taking turns call by call).
 * The statements and round trips every put, get and list cost are counted on the way.
 */
export async function putsAndReads(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
  run: { w1: boolean; w3: boolean },
  /** Another setting of the same stores: its suffix goes on every section id, its name on every title. */
  variant?: { id: string; title: string },
): Promise<void> {
  const id = (base: string) => (variant ? `${base}-${variant.id}` : base);
  const title = (base: string) => (variant ? `${base}, ${variant.title}` : base);
  const sz = ctx.options.sizes;
  const threads = sz['w1-threads'];
  const steps = sz['w1-steps'];
  const rounds = sz['w3-rounds'];
  const limit = sz['w3-limit'];
  const states = growingStates(steps, sz['w1-kb'] * 1024);
  const meanKb = states.reduce((a, s) => a + jsonBytes(s), 0) / states.length / 1024;
  const lastKb = jsonBytes(states[steps - 1]) / 1024;

  const w1 = section({
    id: id('w1'),
    title: title('W1 sequential puts'),
    detail:
      `${threads} threads × ${steps} steps, one put at a time; the state is a message list growing to ` +
      `${lastKb.toFixed(1)} KB (mean ${meanKb.toFixed(1)} KB).`,
    columns: latencyColumns('puts/s'),
    ratioOf: 'rate',
    better: 'higher',
  });
  const w3get = section({
    id: id('w3-get'),
    title: title('W3 get latest'),
    detail: `The latest checkpoint of each of the ${threads} W1 threads, ${rounds} rounds, state decoded.`,
    columns: latencyColumns('gets/s'),
    ratioOf: 'rate',
    better: 'higher',
  });
  const w3list = section({
    id: id('w3-list'),
    title: title(`W3 list(thread, { limit: ${limit} })`),
    detail: `The ${limit} newest checkpoints of each of the ${threads} W1 threads, ${rounds} rounds, states decoded.`,
    columns: latencyColumns('lists/s'),
    ratioOf: 'rate',
    better: 'higher',
  });
  const trips = section({
    id: id('round-trips'),
    title: title('Round trips'),
    detail:
      'Statements (Postgres) or commands (Redis, MULTI/EXEC included) per operation, and requests on the wire, ' +
      'counted on the client during W1 and W3.',
    columns: [
      { key: 'put', header: 'stmts/put', digits: 2 },
      { key: 'get', header: 'stmts/get', digits: 2 },
      { key: 'list', header: 'stmts/list', digits: 2 },
      { key: 'putTrips', header: 'trips/put', digits: 2 },
      { key: 'getTrips', header: 'trips/get', digits: 2 },
    ],
    ratioOf: 'put',
    better: 'lower',
    notes: [
      'On Redis "stmts" are commands; trips are requests written (a MULTI, pipeline or script call is one).',
    ],
  });

  for (const suite of suites) {
    await rec.guard('w1/w3', suite.id, () =>
      withSubjects(suite.subjects, async (opened) => {
        const puts = opened.map(() => new Samples());
        const order = opened.map((_, i) => i);
        // Untimed puts and reads on every side first, enough that each side's put and read paths are
        // optimized code before the clock starts (a server's steady state). With a single thread and a
        // single read, the sides with more JavaScript per call were timed partly in V8's interpreter.
        for (const { subject } of opened) {
          await warmUpPuts(subject, states, threads * steps);
          for (let k = 0; k < WARM_UP_GETS; k++) await subject.getLatest('warm-up');
          for (let k = 0; k < WARM_UP_LISTS; k++) await subject.list('warm-up', limit);
        }
        const c0 = opened.map((o) => o.subject.counters && snapshot(o.subject.counters));
        for (let t = 0; t < threads; t++) {
          for (const i of rotate(order, t)) {
            const subject = opened[i]!.subject;
            for (let step = 0; step < steps; step++) {
              await puts[i]!.time(() => subject.put(`w1-${t}`, step, states[step]!));
            }
          }
        }
        const putCounts = opened.map((o, i) => o.subject.counters && since(o.subject.counters, c0[i]!));
        for (const [i, o] of opened.entries()) w1.rows.push(latencyRow(suite.id, o, puts[i]!));
        progress(`W1 ${suite.id}: ${summary(opened, puts, 'puts/s')}`);

        const gets = opened.map(() => new Samples());
        const lists = opened.map(() => new Samples());
        const c1 = opened.map((o) => o.subject.counters && snapshot(o.subject.counters));
        if (run.w3) {
          // Reads are microseconds: the stores take turns read by read, so a pause hits them alike.
          for (let r = 0; r < rounds; r++) {
            for (let t = 0; t < threads; t++) {
              for (const i of rotate(order, r * threads + t)) {
                const { subject, factory } = opened[i]!;
                const state = await gets[i]!.time(() => subject.getLatest(`w1-${t}`));
                expectMessages(state, steps, `${suite.id} ${factory.label} get`);
              }
            }
          }
        }
        const getCounts = opened.map((o, i) => o.subject.counters && since(o.subject.counters, c1[i]!));
        const c2 = opened.map((o) => o.subject.counters && snapshot(o.subject.counters));
        if (run.w3) {
          for (let r = 0; r < rounds; r++) {
            for (let t = 0; t < threads; t++) {
              for (const i of rotate(order, r * threads + t)) {
                const { subject, factory } = opened[i]!;
                const n = await lists[i]!.time(() => subject.list(`w1-${t}`, limit));
                if (n !== Math.min(limit, steps)) {
                  throw new Error(`${suite.id} ${factory.label} list read ${n}`);
                }
              }
            }
          }
          for (const [i, o] of opened.entries()) {
            w3get.rows.push(latencyRow(suite.id, o, gets[i]!));
            w3list.rows.push(latencyRow(suite.id, o, lists[i]!));
          }
          progress(
            `W3 ${suite.id}: ${summary(opened, gets, 'gets/s')}; ${summary(opened, lists, 'lists/s')}`,
          );
        }
        const listCounts = opened.map((o, i) => o.subject.counters && since(o.subject.counters, c2[i]!));
        for (const [i, o] of opened.entries()) {
          if (o.subject.counters === undefined) continue;
          trips.rows.push({
            backend: suite.id,
            side: o.factory.side,
            label: o.factory.label,
            values: {
              put: perOp(putCounts[i], puts[i]!.count, 'commands'),
              get: perOp(getCounts[i], gets[i]!.count, 'commands'),
              list: perOp(listCounts[i], lists[i]!.count, 'commands'),
              putTrips: perOp(putCounts[i], puts[i]!.count, 'roundTrips'),
              getTrips: perOp(getCounts[i], gets[i]!.count, 'roundTrips'),
            },
          });
        }
      }),
    );
  }
  const out: Section[] = [];
  if (run.w1) out.push(w1);
  if (run.w3) out.push(w3get, w3list);
  if (trips.rows.length > 0) out.push(trips);
  rec.add(...out.map(fillRatios));
}

/** One progress line: each side's rate. */
export function summary(opened: readonly Opened[], samples: readonly Samples[], unit: string): string {
  return opened
    .map(
      (o, i) => `${SIDE_NAMES[o.factory.side]} ${Math.round(samples[i]!.perSecond).toLocaleString('en-US')}`,
    )
    .join(' · ')
    .concat(` ${unit}`);
}
