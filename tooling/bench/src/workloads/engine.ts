import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { fillRatios, section } from '../report/section.js';
import { median, rotate } from '../stats.js';
import { type Counters, since, snapshot } from '../stores/counters.js';
import type { BackendSuite, OpenedStore, Side } from '../stores/types.js';
import { promiseHooksEnabled } from './async-hooks-probe.js';
import { flowLoop, langgraphLoop, type RunThread } from './engine-graphs.js';

/** One engine on one store, ready to run threads. */
interface EngineCase {
  backend: string;
  side: Side;
  label: string;
  run: RunThread;
  counters: Counters | undefined;
}

const name = (store: object) => store.constructor.name;

/** @flow's cases: no checkpointer, then each backend's checkpointer (and its variants). */
async function flowCases(suites: readonly BackendSuite[], steps: number, open: OpenedStore<unknown>[]) {
  const cases: EngineCase[] = [
    {
      backend: 'none',
      side: 'flow',
      label: 'StateGraph, no checkpointer',
      run: flowLoop(steps, undefined),
      counters: undefined,
    },
  ];
  for (const suite of suites) {
    const stores = [{ setting: '', open: suite.flowStore }, ...(suite.flowVariants ?? [])];
    for (const { setting, open: openStore } of stores) {
      const opened = (await openStore()) as OpenedStore<never>;
      open.push(opened);
      cases.push({
        backend: suite.id,
        side: 'flow',
        label: `StateGraph + ${name(opened.store)}${setting ? ` (${setting})` : ''}`,
        run: flowLoop(steps, opened.store),
        counters: opened.counters,
      });
    }
  }
  return cases;
}

/** LangGraph's cases: no checkpointer, then each saver with its default durability and with `sync`. */
async function langgraphCases(suites: readonly BackendSuite[], steps: number, open: OpenedStore<unknown>[]) {
  const cases: EngineCase[] = [
    {
      backend: 'none',
      side: 'langgraph',
      label: 'StateGraph, no checkpointer',
      run: langgraphLoop(steps, undefined, 'async'),
      counters: undefined,
    },
  ];
  for (const suite of suites) {
    if (suite.langgraphStore === undefined) continue;
    for (const durability of ['async', 'sync'] as const) {
      // A saver of its own per durability, so each one's statements are counted apart.
      const opened = (await suite.langgraphStore()) as OpenedStore<never>;
      open.push(opened);
      cases.push({
        backend: suite.id,
        side: 'langgraph',
        label: `StateGraph + ${name(opened.store)} (durability ${durability}${durability === 'async' ? ', default' : ''})`,
        run: langgraphLoop(steps, opened.store, durability),
        counters: opened.counters,
      });
    }
  }
  return cases;
}

interface Timed {
  c: EngineCase;
  /** Median wall time per super-step. */
  us: number;
  /** Median CPU time of this process per super-step: the engine's own cost, less exposed to a busy machine. */
  cpu: number;
  stmts: number | undefined;
}

/**
 * Times every case: one untimed run each (JIT warm-up), then `runs` timed runs on fresh threads, the cases
 * taking turns in rotating order. A case that throws fails the whole phase (it is one process's timing).
 */
async function timeCases(
  cases: readonly EngineCase[],
  steps: number,
  runs: number,
  tag: string,
): Promise<Timed[]> {
  for (const c of cases) await c.run(`w5-${tag}-warm`);
  const times = cases.map(() => [] as number[]);
  const cpu = cases.map(() => [] as number[]);
  const before = cases.map((c) => c.counters && snapshot(c.counters));
  const order = cases.map((_, i) => i);
  for (let r = 0; r < runs; r++) {
    for (const i of rotate(order, r)) {
      const cpu0 = process.cpuUsage();
      const start = performance.now();
      await cases[i]!.run(`w5-${tag}-${r}`);
      times[i]!.push(((performance.now() - start) * 1000) / steps);
      const used = process.cpuUsage(cpu0);
      cpu[i]!.push((used.user + used.system) / steps);
    }
  }
  return cases.map((c, i) => {
    const counted = c.counters && since(c.counters, before[i]!);
    return {
      c,
      us: median(times[i]!),
      cpu: median(cpu[i]!),
      stmts: counted && counted.commands / (runs * steps),
    };
  });
}

/**
 * W5: µs per super-step of a two-node loop of `w5-steps` trivial super-steps, on @flow and on LangGraph.js,
 * with no checkpointer and with each backend's. All @flow cases run first, taking turns, then all
 * LangGraph ones: LangGraph turns on AsyncLocalStorage at its first run, and on Node 20 that taxes every
 * promise in the process for good, so interleaving the engines would charge @flow for LangGraph's hooks.
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
      { key: 'cpu', header: 'CPU µs/step' },
      { key: 'stmts', header: 'stmts/step', digits: 2 },
    ],
    ratioOf: 'us',
    better: 'lower',
    notes: [
      "µs/step is wall time; CPU µs/step is this process's CPU time (user + system, all threads) over the same " +
        'runs: the engine and driver cost without the waits, and less exposed to a busy machine.',
      'stmts/step: SQL statements on Postgres, commands on Redis, per super-step (the input checkpoint included).',
      'All @flow cases run before any LangGraph case: LangGraph enables AsyncLocalStorage (promise hooks) at its ' +
        'first run, which would slow every promise of the @flow runs after it.',
    ],
  });
  const results: Timed[] = [];
  for (const [engineName, build] of [
    ['@flow', flowCases],
    ['LangGraph', langgraphCases],
  ] as const) {
    await rec.guard('w5', engineName, async () => {
      const open: OpenedStore<unknown>[] = [];
      try {
        const cases = await build(suites, steps, open);
        const timed = await timeCases(cases, steps, runs, engineName === '@flow' ? 'f' : 'l');
        results.push(...timed);
        progress(`W5 ${engineName}: ${timed.map((t) => `${t.c.backend} ${t.us.toFixed(0)} µs`).join(' · ')}`);
      } finally {
        for (const o of open) await o.close();
      }
      if (engineName === '@flow' && (await promiseHooksEnabled())) {
        // docs/engine.md: a graph whose nodes use only ctx.interrupt must not turn AsyncLocalStorage on.
        throw new Error('promise hooks are on after the @flow runs: something turned AsyncLocalStorage on');
      }
    });
  }
  const backends = ['none', ...suites.map((s) => s.id)];
  results.sort((a, b) => backends.indexOf(a.c.backend) - backends.indexOf(b.c.backend));
  for (const { c, us, cpu, stmts } of results) {
    w5.rows.push({ backend: c.backend, side: c.side, label: c.label, values: { us, cpu, stmts } });
  }
  rec.add(fillRatios(w5));
}
