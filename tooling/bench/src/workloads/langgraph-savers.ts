import type { Checkpointer } from '@flow/core';
import { FlowSaver } from '@flow/langgraph';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { type BaseCheckpointSaver, MemorySaver } from '@langchain/langgraph-checkpoint';
import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { type Row, section } from '../report/section.js';
import type { BackendSuite, OpenedStore, Side } from '../stores/types.js';
import { FAN, fanOut, NOW, type Run } from './durable-nodes.js';
import { langgraphLoop } from './engine-graphs.js';
import { type CaseTiming, type TimedCase, timeCases } from './time-cases.js';

type Durability = 'async' | 'sync';

/** The fan-out graph on LangGraph.js: `a`–`d` start together, each adds 1 to its own key and loops on itself. */
function langgraphFanOut(steps: number, checkpointer: BaseCheckpointSaver, durability: Durability): Run {
  const spec = Object.fromEntries(FAN.map((k) => [k, Annotation<number>()]));
  const State = Annotation.Root(spec);
  type S = Record<string, number>;
  // LangGraph's builder types follow node names one call at a time; a loop needs a looser type.
  interface Builder {
    addNode(name: string, fn: (s: S) => Promise<S>): Builder;
    addEdge(from: string, to: string): Builder;
    addConditionalEdges(from: string, route: (s: S) => string, ends: string[]): Builder;
    compile(opts: { checkpointer: BaseCheckpointSaver }): {
      invoke(input: S, config: object): Promise<unknown>;
    };
  }
  let graph = new StateGraph(State) as unknown as Builder;
  // A node may not share a channel's name: node `node_a` counts in channel `a`.
  for (const k of FAN) graph = graph.addNode(`node_${k}`, async (s: S) => ({ [k]: (s[k] ?? 0) + 1 }));
  for (const k of FAN) {
    const node = `node_${k}`;
    graph = graph
      .addEdge(START, node)
      .addConditionalEdges(node, (s: S) => ((s[k] ?? 0) < steps ? node : END), [node, END]);
  }
  const app = graph.compile({ checkpointer });
  return async (thread) => {
    const state = (await app.invoke(
      {},
      { configurable: { thread_id: thread }, recursionLimit: steps + 10, durability },
    )) as S;
    if (FAN.some((k) => state[k] !== steps))
      throw new Error(`LangGraph fan-out ended with ${JSON.stringify(state)}`);
  };
}

export interface Case extends TimedCase {
  backend: string;
  side: Side;
  label: string;
  durability: Durability | undefined;
  /** Whether this is a `FlowSaver` case: the others compare against it. */
  flowSaver: boolean;
  /**
   * A floor: LangGraph's engine with `MemorySaver` (`'memory'`), with no checkpointer (`'none'`), or with
   * `CommitFloorSaver` (`'commit'`: MemorySaver plus one commit of this database per put).
   */
  floor?: 'memory' | 'none' | 'commit';
}

export type Timed = CaseTiming<Case>;

/**
 * Rows with each LangGraph saver's time over FlowSaver's of the same backend and durability, and what each
 * saver adds per super-step above the `MemorySaver` floor of that durability (the engine's own cost, timed in
 * the same turns), with the LangGraph saver's addition over FlowSaver's; and the LangGraph saver's time over
 * the commit floor's: the ratio a saver that costs nothing but its one commit per super-step would reach.
 */
export function rowsOf(timed: readonly Timed[]): Row[] {
  const find = (backend: string, durability: Durability | undefined, pick: (c: Case) => boolean) =>
    timed.find((t) => pick(t.c) && t.c.backend === backend && t.c.durability === durability);
  return timed.map(({ c, us, cpu, stmts }) => {
    const base = find(c.backend, c.durability, (x) => x.flowSaver);
    const floor = find(c.backend, c.durability, (x) => x.floor === 'memory');
    const commitFloor = find(c.backend, c.durability, (x) => x.floor === 'commit');
    const saver = c.floor === undefined && c.side === 'langgraph';
    const ratio = saver && !c.flowSaver && base !== undefined ? us / base.us : undefined;
    const best = saver && !c.flowSaver && commitFloor !== undefined ? us / commitFloor.us : undefined;
    const above =
      (saver || c.floor === 'commit') && floor !== undefined && c.side === 'langgraph'
        ? us - floor.us
        : undefined;
    const baseAbove = base !== undefined && floor !== undefined ? base.us - floor.us : undefined;
    const aboveRatio =
      ratio !== undefined && above !== undefined && baseAbove !== undefined && baseAbove > 0
        ? above / baseAbove
        : undefined;
    return {
      backend: c.backend,
      side: c.side,
      label: c.label,
      values: { us, cpu, stmts, ratio, above, aboveRatio, best },
    };
  });
}

/**
 * The floors of one backend's loop: the same graph on `MemorySaver`, on no checkpointer, and (where the suite
 * has one) on the commit floor, one durability.
 */
function floorCases(
  steps: number,
  backend: string,
  durability: Durability,
  commit: OpenedStore<BaseCheckpointSaver> | undefined,
): Case[] {
  const floor = (
    kind: 'memory' | 'none' | 'commit',
    label: string,
    saver: BaseCheckpointSaver | undefined,
  ): Case => ({
    backend,
    side: 'langgraph',
    label: `${label} (durability ${durability}, floor)`,
    durability,
    flowSaver: false,
    floor: kind,
    run: langgraphLoop(steps, saver, durability),
    counters: kind === 'commit' ? commit?.counters : undefined,
  });
  return [
    floor('memory', 'StateGraph + MemorySaver', new MemorySaver()),
    floor('none', 'StateGraph, no checkpointer', undefined),
    ...(commit === undefined
      ? []
      : [floor('commit', 'StateGraph + MemorySaver + one commit per put', commit.store)]),
  ];
}

/**
 * W8: LangGraph.js graphs on @flow's backends. The W5 loop on LangGraph.js with `FlowSaver` over each
 * backend's checkpointer against LangGraph's own saver for that database, both durabilities; and the W7
 * fan-out of four nodes per super-step on @flow's engine, on LangGraph.js with its own saver, and on
 * LangGraph.js with `FlowSaver`. Runs after every @flow-only workload (LangGraph turns AsyncLocalStorage on).
 */
export async function langgraphSavers(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const steps = ctx.options.sizes['w5-steps'];
  const runs = ctx.options.sizes['w5-runs'];
  const columns = [
    { key: 'us', header: 'µs/step' },
    { key: 'cpu', header: 'CPU µs/step' },
    { key: 'stmts', header: 'stmts/step', digits: 2 },
    { key: 'ratio', header: 'LangGraph saver/FlowSaver', digits: 3 },
  ];
  const loopColumns = [
    ...columns,
    { key: 'above', header: 'µs/step above MemorySaver' },
    { key: 'aboveRatio', header: 'added: LangGraph saver/FlowSaver', digits: 2 },
    { key: 'best', header: 'LangGraph saver/commit floor', digits: 3 },
  ];
  const loop = section({
    id: 'w8-loop',
    title: 'W8 LangGraph.js on FlowSaver: the W5 loop, per super-step',
    detail:
      `LangGraph.js's two-node loop of ${steps} super-steps; median of ${runs} runs after one warm-up. FlowSaver ` +
      "over each backend's @flow checkpointer against LangGraph's saver for the same database, same durability; " +
      'the floors, the same graph on MemorySaver and on no checkpointer, in the same turns.',
    columns: loopColumns,
    ratioOf: 'ratio',
    better: 'higher',
    notes: [
      'The last column is the LangGraph saver’s µs/step over FlowSaver’s at the same durability: above 1, FlowSaver is faster.',
      'Redis: LangGraph’s Redis saver needs the RedisJSON and RediSearch modules of Redis Stack, so there is no ' +
        'LangGraph saver to compare on plain Redis; FlowSaver runs on it as on any @flow backend.',
      'stmts/step: SQL statements (Postgres) or commands (Redis) per super-step, the input checkpoint included.',
      'Floor rows: LangGraph’s engine with MemorySaver, and with no checkpointer, timed in the same turns. ' +
        '“Above MemorySaver” is a saver row’s µs/step minus the MemorySaver row’s of the same durability: what the ' +
        'saver adds to the engine; the column after it divides the LangGraph saver’s addition by FlowSaver’s.',
      'Commit floor: MemorySaver plus one single-row INSERT in a transaction of its own per put (tooling/bench/src/' +
        'stores/commit-floor.ts), the least a saver that makes each checkpoint durable before its put resolves can ' +
        'do per super-step, since LangGraph chains each put after the one before. The last column is the LangGraph ' +
        'saver’s µs/step over it: the ratio FlowSaver would reach if it cost nothing but that commit.',
      'With durability async, LangGraph’s engine runs a graph of trivial async nodes to the end in promise jobs, ' +
        'without a turn of the event loop, so no saver’s I/O overlaps a super-step: the puts (each chained after the ' +
        'one before) run one after another once the engine is done.',
    ],
  });
  const fan = section({
    id: 'w8-fanout',
    title: 'W8 a fan-out of four per super-step: @flow/graph and LangGraph.js',
    detail:
      `Four trivial nodes per super-step (the W7 fan-out) for ${steps} super-steps; median of ${runs} runs after ` +
      "one warm-up. @flow's engine on its checkpointer, LangGraph.js on its own saver (durability sync, the " +
      'guarantee @flow gives, and async, its default), and LangGraph.js on FlowSaver.',
    columns,
    ratioOf: 'ratio',
    better: 'higher',
    notes: [
      'The last column: the LangGraph saver row over the FlowSaver row of the same durability. Compare @flow/graph ' +
        'with LangGraph.js by the µs/step and stmts/step columns.',
      'These run after LangGraph has turned AsyncLocalStorage on (W5), so every row here pays its promise hooks.',
    ],
  });
  for (const suite of suites) {
    if (suite.id === 'memory') continue;
    await rec.guard('lg', suite.id, async () => {
      const open: OpenedStore<unknown>[] = [];
      const flowStore = async () => {
        const o = (await suite.flowStore()) as OpenedStore<Checkpointer>;
        open.push(o);
        return o;
      };
      const commitFloor = async () => {
        const o = (await suite.commitFloor?.()) as OpenedStore<BaseCheckpointSaver> | undefined;
        if (o) open.push(o);
        return o;
      };
      const lgStore = async () => {
        const o = (await suite.langgraphStore?.()) as OpenedStore<BaseCheckpointSaver> | undefined;
        if (o) open.push(o);
        return o;
      };
      try {
        const cases: Case[] = [];
        const fanCases: Case[] = [];
        for (const durability of ['async', 'sync'] as const) {
          cases.push(...floorCases(steps, suite.id, durability, await commitFloor()));
          const own = await lgStore();
          if (own) {
            cases.push({
              backend: suite.id,
              side: 'langgraph',
              label: `StateGraph + ${own.store.constructor.name} (durability ${durability})`,
              durability,
              flowSaver: false,
              run: langgraphLoop(steps, own.store, durability),
              counters: own.counters,
            });
          }
          const f = await flowStore();
          cases.push({
            backend: suite.id,
            side: 'langgraph',
            label: `StateGraph + FlowSaver(${f.store.constructor.name}) (durability ${durability})`,
            durability,
            flowSaver: true,
            run: langgraphLoop(steps, new FlowSaver(f.store), durability),
            counters: f.counters,
          });
          if (suite.id === 'redis') continue;
          const ownFan = await lgStore();
          if (ownFan) {
            fanCases.push({
              backend: suite.id,
              side: 'langgraph',
              label: `LangGraph.js + ${ownFan.store.constructor.name} (durability ${durability})`,
              durability,
              flowSaver: false,
              run: langgraphFanOut(steps, ownFan.store, durability),
              counters: ownFan.counters,
            });
          }
          const fFan = await flowStore();
          fanCases.push({
            backend: suite.id,
            side: 'langgraph',
            label: `LangGraph.js + FlowSaver(${fFan.store.constructor.name}) (durability ${durability})`,
            durability,
            flowSaver: true,
            run: langgraphFanOut(steps, new FlowSaver(fFan.store), durability),
            counters: fFan.counters,
          });
        }
        if (suite.id !== 'redis') {
          const g = await flowStore();
          fanCases.unshift({
            backend: suite.id,
            side: 'flow',
            label: `@flow/graph + ${g.store.constructor.name}`,
            durability: undefined,
            flowSaver: false,
            run: fanOut(NOW, steps, g.store),
            counters: g.counters,
          });
        }
        const timed = await timeCases(cases, steps, runs, `lg-${suite.id}-loop`);
        loop.rows.push(...rowsOf(timed));
        if (fanCases.length > 0)
          fan.rows.push(...rowsOf(await timeCases(fanCases, steps, runs, `lg-${suite.id}-fan`)));
        progress(`W8 ${suite.id}: ${timed.map((t) => `${t.us.toFixed(0)} µs`).join(' · ')}`);
      } finally {
        for (const o of open) await o.close();
      }
    });
  }
  rec.add(loop, fan);
}
