import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, section } from '../report/section.js';
import { median, rotate } from '../stats.js';
import { type Counters, since, snapshot } from '../stores/counters.js';
import type { BackendSuite, OpenedStore, Side } from '../stores/types.js';
import { flowLoop, langgraphLoop, type RunThread } from './engine-graphs.js';

/** One engine on one store, ready to run threads. */
interface EngineCase {
  side: Side;
  label: string;
  run: RunThread;
  counters: Counters | undefined;
}

const DURABILITIES = ['async', 'sync'] as const;

/** Builds the cases of one backend: @flow, then LangGraph with its default durability and with `sync`. */
async function casesOf(
  suite: BackendSuite | undefined,
  steps: number,
  open: OpenedStore<unknown>[],
): Promise<EngineCase[]> {
  if (suite === undefined) {
    return [
      {
        side: 'flow',
        label: 'StateGraph, no checkpointer',
        run: flowLoop(steps, undefined),
        counters: undefined,
      },
      ...DURABILITIES.slice(0, 1).map((d) => ({
        side: 'langgraph' as const,
        label: 'StateGraph, no checkpointer',
        run: langgraphLoop(steps, undefined, d),
        counters: undefined,
      })),
    ];
  }
  const flow = (await suite.flowStore()) as OpenedStore<never>;
  open.push(flow);
  const name = (s: object) => s.constructor.name;
  const cases: EngineCase[] = [
    {
      side: 'flow',
      label: `StateGraph + ${name(flow.store)}`,
      run: flowLoop(steps, flow.store),
      counters: flow.counters,
    },
  ];
  for (const durability of suite.langgraphStore ? DURABILITIES : []) {
    // A store of its own per durability, so each one's statements are counted apart.
    const lg = (await suite.langgraphStore!()) as OpenedStore<never>;
    open.push(lg);
    cases.push({
      side: 'langgraph',
      label: `StateGraph + ${name(lg.store)} (durability ${durability}${durability === 'async' ? ', default' : ''})`,
      run: langgraphLoop(steps, lg.store, durability),
      counters: lg.counters,
    });
  }
  return cases;
}

/**
 * W5: µs per super-step of a two-node loop of `w5-steps` trivial super-steps, on @flow and on LangGraph.js,
 * with no checkpointer and with each backend's. Each case runs once untimed (JIT warm-up), then `w5-runs`
 * timed runs on fresh threads, the cases taking turns in rotating order; the median run is reported.
 */
export async function engine(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const steps = ctx.options.sizes['w5-steps'];
  const runs = ctx.options.sizes['w5-runs'];
  const w5 = section({
    id: 'w5',
    title: 'W5 engine, per super-step',
    detail:
      `A two-node loop of ${steps} trivial super-steps; median of ${runs} runs after one warm-up. ` +
      '@flow writes each checkpoint before the next super-step; LangGraph.js by default ("async") writes it ' +
      'while the next one runs, and with durability "sync" as @flow does.',
    columns: [
      { key: 'us', header: 'µs/step' },
      { key: 'stmts', header: 'stmts/step', digits: 2 },
    ],
    ratioOf: 'us',
    better: 'lower',
    notes: [
      'stmts/step: SQL statements on Postgres, commands on Redis, per super-step (the input checkpoint included).',
    ],
  });
  const groups: (BackendSuite | undefined)[] = [undefined, ...suites];
  for (const suite of groups) {
    const backend = suite?.id ?? 'none';
    await rec.guard('w5', backend, async () => {
      const open: OpenedStore<unknown>[] = [];
      try {
        const cases = await casesOf(suite, steps, open);
        for (const c of cases) await c.run(`w5-warm-${c.side}`);
        const times = cases.map(() => [] as number[]);
        const before = cases.map((c) => c.counters && snapshot(c.counters));
        const order = cases.map((_, i) => i);
        for (let r = 0; r < runs; r++) {
          for (const i of rotate(order, r)) {
            const start = performance.now();
            await cases[i]!.run(`w5-${r}`);
            times[i]!.push(((performance.now() - start) * 1000) / steps);
          }
        }
        for (const [i, c] of cases.entries()) {
          const counted = c.counters && since(c.counters, before[i]!);
          w5.rows.push({
            backend,
            side: c.side,
            label: c.label,
            values: { us: median(times[i]!), stmts: counted && counted.commands / (runs * steps) },
          });
        }
        progress(
          `W5 ${backend}: ${cases.map((c, i) => `${c.label} ${median(times[i]!).toFixed(0)} µs`).join(' · ')}`,
        );
      } finally {
        for (const o of open) await o.close();
      }
    });
  }
  rec.add(fillRatios(w5));
}
