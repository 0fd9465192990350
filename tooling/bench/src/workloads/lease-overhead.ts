import type { Checkpointer } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { section } from '../report/section.js';
import { withoutLeases } from '../stores/no-lease.js';
import type { BackendSuite, OpenedStore } from '../stores/types.js';
import { timeCases } from './time-cases.js';

type Run = (thread: string) => Promise<void>;

/** The W5 loop with a given `leaseMs`. */
function loop(steps: number, checkpointer: Checkpointer, leaseMs: number): Run {
  const app = new StateGraph<{ n: number }>()
    .addNode('a', async (s) => ({ n: s.n + 1 }))
    .addNode('b', async (s) => ({ n: s.n + 1 }))
    .addEdge(START, 'a')
    .addConditionalEdges('a', (s) => (s.n < steps ? 'b' : END), ['b'])
    .addConditionalEdges('b', (s) => (s.n < steps ? 'a' : END), ['a'])
    .compile({ checkpointer, maxSteps: steps, leaseMs });
  return async (thread) => {
    const { state } = await app.invoke({ n: 0 }, { thread });
    if (state.n !== steps) throw new Error(`lease loop ended with n=${state.n}, want ${steps}`);
  };
}

/** A lease short enough to be renewed several times in one timed run. */
const SHORT_LEASE_MS = 300;

/**
 * Lease overhead: the W5 loop on Postgres and Redis with leases on (the default `leaseMs`, and a short one
 * renewed during the run) against the same store whose lease calls are no-ops, side by side in turns.
 */
export async function leaseOverhead(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const steps = ctx.options.sizes['w5-steps'];
  const runs = ctx.options.sizes['w5-runs'];
  const s = section({
    id: 'lease',
    title: 'Lease overhead: the W5 loop with leases on and off',
    detail:
      `The W5 loop (${steps} super-steps) with leases on (default leaseMs 30 000: taken and released once per ` +
      `call; and leaseMs ${SHORT_LEASE_MS}, renewed every ${SHORT_LEASE_MS / 3} ms while it runs) against the ` +
      `same store with its lease calls made no-ops ("off"), each on a store of its own, taking turns; median of ` +
      `${runs} runs after one warm-up.`,
    columns: [
      { key: 'off', header: 'off µs/step' },
      { key: 'on', header: 'on µs/step' },
      { key: 'ratio', header: 'on/off', digits: 3 },
      { key: 'short', header: `leaseMs ${SHORT_LEASE_MS} µs/step` },
      { key: 'shortRatio', header: `${SHORT_LEASE_MS}/off`, digits: 3 },
      { key: 'cpuOff', header: 'CPU µs/step off' },
      { key: 'cpuOn', header: 'CPU µs/step on' },
      { key: 'stmtsOff', header: 'stmts/step off', digits: 2 },
      { key: 'stmtsOn', header: 'stmts/step on', digits: 2 },
    ],
    ratioOf: 'ratio',
    better: 'lower',
    notes: [
      'Leases cannot be turned off in the engine; "off" wraps the checkpointer so that acquireLease, renewLease, ' +
        'releaseLease and getLease do nothing (a bench-only wrapper, tooling/bench/src/stores/no-lease.ts).',
      'The target: on/off ≤ 1.15 on Postgres and Redis (a renewal is a timer, never a write per step). A call ' +
        'adds two statements or commands (acquire and release) whatever its length, so stmts/step on is off + 2/steps.',
      "CPU µs/step is this process's CPU time over the same runs: less exposed to a busy machine than wall time.",
    ],
  });
  for (const suite of suites) {
    if (suite.id !== 'postgres' && suite.id !== 'redis') continue;
    await rec.guard('lease', suite.id, async () => {
      const open: OpenedStore<Checkpointer>[] = [];
      const store = async () => {
        const o = (await suite.flowStore()) as OpenedStore<Checkpointer>;
        open.push(o);
        return o;
      };
      try {
        const [off, on, short] = [await store(), await store(), await store()];
        const [tOff, tOn, tShort] = await timeCases(
          [
            { run: loop(steps, withoutLeases(off.store), 30_000), counters: off.counters },
            { run: loop(steps, on.store, 30_000), counters: on.counters },
            { run: loop(steps, short.store, SHORT_LEASE_MS), counters: short.counters },
          ],
          steps,
          runs,
          `lease-${suite.id}`,
        );
        if (tOff === undefined || tOn === undefined || tShort === undefined)
          throw new Error('a case did not run');
        s.rows.push({
          backend: suite.id,
          side: 'flow',
          label: `W5 loop + ${on.store.constructor.name}`,
          values: {
            off: tOff.us,
            on: tOn.us,
            ratio: tOn.us / tOff.us,
            short: tShort.us,
            shortRatio: tShort.us / tOff.us,
            cpuOff: tOff.cpu,
            cpuOn: tOn.cpu,
            stmtsOff: tOff.stmts,
            stmtsOn: tOn.stmts,
          },
        });
        progress(`lease ${suite.id}: on/off ${(tOn.us / tOff.us).toFixed(3)}`);
      } finally {
        for (const o of open) await o.close();
      }
    });
  }
  rec.add(s);
}
