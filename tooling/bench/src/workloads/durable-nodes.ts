import type { Checkpointer } from '@flow/core';
import { END, START, StateGraph } from '@flow/graph';
import * as before from '../baseline-engine/index.js';
import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { section } from '../report/section.js';
import type { BackendSuite, OpenedStore } from '../stores/types.js';
import { timeCases } from './time-cases.js';

export type Run = (thread: string) => Promise<void>;
type Engine = Pick<typeof before, 'StateGraph' | 'START' | 'END'>;

export const NOW: Engine = { StateGraph: StateGraph as unknown as Engine['StateGraph'], START, END };

/** The W5 loop (`a` and `b` take turns adding 1 to `n`): one node per super-step. */
function loop(engine: Engine, steps: number, checkpointer: Checkpointer): Run {
  const app = new engine.StateGraph<{ n: number }>()
    .addNode('a', async (s) => ({ n: s.n + 1 }))
    .addNode('b', async (s) => ({ n: s.n + 1 }))
    .addEdge(engine.START, 'a')
    .addConditionalEdges('a', (s) => (s.n < steps ? 'b' : engine.END), ['b'])
    .addConditionalEdges('b', (s) => (s.n < steps ? 'a' : engine.END), ['a'])
    .compile({ checkpointer, maxSteps: steps });
  return async (thread) => {
    const { state } = await app.invoke({ n: 0 }, { thread });
    if (state.n !== steps) throw new Error(`W5 loop ended with n=${state.n}, want ${steps}`);
  };
}

export const FAN = ['a', 'b', 'c', 'd'] as const;

/** Four nodes per super-step: each of `a`–`d` adds 1 to its own key and loops on itself until `steps`. */
export function fanOut(engine: Engine, steps: number, checkpointer: Checkpointer): Run {
  let graph = new engine.StateGraph<Record<string, number>>();
  for (const k of FAN) graph = graph.addNode(k, async (s) => ({ [k]: (s[k] ?? 0) + 1 }));
  for (const k of FAN) {
    graph = graph
      .addEdge(engine.START, k)
      .addConditionalEdges(k, (s) => ((s[k] ?? 0) < steps ? k : engine.END), [k]);
  }
  const app = graph.compile({ checkpointer, maxSteps: steps });
  return async (thread) => {
    const { state } = await app.invoke({}, { thread });
    if (FAN.some((k) => state[k] !== steps)) throw new Error(`fan-out ended with ${JSON.stringify(state)}`);
  };
}

/**
 * W7, the cost of durable nodes: the W5 loop on the engine before durable nodes (a frozen copy) and on
 * today's, side by side on one store each; and a fan-out of four nodes per super-step against the one-node
 * loop on today's engine (where each completed node of a several-node super-step is stored as it finishes).
 */
export async function durableNodes(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const steps = ctx.options.sizes['w5-steps'];
  const runs = ctx.options.sizes['w5-runs'];
  const cost = section({
    id: 'w7-w5',
    title: 'W7 durable nodes: the W5 loop before and after',
    detail:
      `The W5 loop (${steps} one-node super-steps) on the engine before durable nodes and on today's, ` +
      `each on a store of its own, taking turns; median of ${runs} runs after one warm-up.`,
    columns: [
      { key: 'before', header: 'before µs/step' },
      { key: 'after', header: 'after µs/step' },
      { key: 'ratio', header: 'after/before', digits: 3 },
      { key: 'cpuBefore', header: 'CPU µs/step before' },
      { key: 'cpuAfter', header: 'CPU µs/step after' },
      { key: 'cpuRatio', header: 'CPU after/before', digits: 3 },
      { key: 'stmtsBefore', header: 'stmts/step before', digits: 2 },
      { key: 'stmtsAfter', header: 'stmts/step after', digits: 2 },
    ],
    ratioOf: 'ratio',
    better: 'lower',
    notes: [
      'The target: after/before ≤ 1.1 on memory, SQLite and Postgres, and no extra statement per step.',
      'CPU µs/step is this process’s CPU time (user + system) over the same runs: the engine and driver ' +
        'without the waits, and far less moved by a busy machine than the wall time.',
    ],
  });
  const fan = section({
    id: 'w7-fanout',
    title: 'W7 durable nodes: a fan-out of four per super-step',
    detail:
      `${steps} super-steps of four trivial nodes each against the W5 loop (one node per super-step), on ` +
      `today's engine; median of ${runs} runs after one warm-up.`,
    columns: [
      { key: 'one', header: '1 node µs/step' },
      { key: 'four', header: '4 nodes µs/step' },
      { key: 'ratio', header: '4/1', digits: 3 },
      { key: 'stmtsOne', header: 'stmts/step 1 node', digits: 2 },
      { key: 'stmtsFour', header: 'stmts/step 4 nodes', digits: 2 },
    ],
    ratioOf: 'ratio',
    better: 'lower',
    notes: [
      'Each node of a several-node super-step that finishes while others still run has its update stored ' +
        'before the super-step commits (so a crash keeps it); the last one to finish goes straight into the commit.',
    ],
  });
  for (const suite of suites) {
    if (suite.id === 'redis') continue;
    await rec.guard('w7', suite.id, async () => {
      const open: OpenedStore<Checkpointer>[] = [];
      const store = async () => {
        const o = (await suite.flowStore()) as OpenedStore<Checkpointer>;
        open.push(o);
        return o;
      };
      try {
        const [b, a] = [await store(), await store()];
        // An in-memory run takes about a millisecond: a GC pause of the growing store, or a run before the JIT
        // has optimized the engine, outweighs the engine's own cost, so memory gets many more (cheap) runs.
        const inMemory = suite.id === 'memory';
        const [old, now] = await timeCases(
          [
            { run: loop(before, steps, b.store), counters: b.counters },
            { run: loop(NOW, steps, a.store), counters: a.counters },
          ],
          steps,
          inMemory ? Math.max(10 * runs, 101) : runs,
          `w7-${suite.id}-w5`,
          inMemory ? 30 : 1,
        );
        cost.rows.push({
          backend: suite.id,
          side: 'flow',
          label: `W5 loop + ${a.store.constructor.name}`,
          values: {
            before: old?.us,
            after: now?.us,
            ratio: old && now ? now.us / old.us : undefined,
            cpuBefore: old?.cpu,
            cpuAfter: now?.cpu,
            cpuRatio: old && now ? now.cpu / old.cpu : undefined,
            stmtsBefore: old?.stmts,
            stmtsAfter: now?.stmts,
          },
        });
        progress(
          `W7 ${suite.id}: W5 after/before ${((now?.us ?? 0) / (old?.us ?? 1)).toFixed(3)}, ` +
            `CPU ${((now?.cpu ?? 0) / (old?.cpu ?? 1)).toFixed(3)}`,
        );
        if (suite.id === 'memory') return;
        const [s1, s4] = [await store(), await store()];
        const [one, four] = await timeCases(
          [
            { run: loop(NOW, steps, s1.store), counters: s1.counters },
            { run: fanOut(NOW, steps, s4.store), counters: s4.counters },
          ],
          steps,
          runs,
          `w7-${suite.id}-fan`,
        );
        fan.rows.push({
          backend: suite.id,
          side: 'flow',
          label: `${s4.store.constructor.name}`,
          values: {
            one: one?.us,
            four: four?.us,
            ratio: one && four ? four.us / one.us : undefined,
            stmtsOne: one?.stmts,
            stmtsFour: four?.stmts,
          },
        });
      } finally {
        for (const o of open) await o.close();
      }
    });
  }
  rec.add(cost, fan);
}
