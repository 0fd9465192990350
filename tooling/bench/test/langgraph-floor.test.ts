import { describe, expect, it } from 'vitest';
import { section } from '../src/report/section.js';
import { evaluateTargets } from '../src/report/targets.js';
import { type Case, rowsOf, type Timed } from '../src/workloads/langgraph-savers.js';

const run = async () => {};

function timed(label: string, us: number, extra: Partial<Case>): Timed {
  const c: Case = {
    backend: 'postgres',
    side: 'langgraph',
    label,
    durability: 'sync',
    flowSaver: false,
    run,
    counters: undefined,
    ...extra,
  };
  return { c, us, cpu: us / 2, stmts: undefined };
}

const loop = [
  timed('StateGraph + MemorySaver (durability sync, floor)', 400, { floor: 'memory' }),
  timed('StateGraph, no checkpointer (durability sync, floor)', 350, { floor: 'none' }),
  timed('StateGraph + MemorySaver + one commit per put (durability sync, floor)', 640, { floor: 'commit' }),
  timed('StateGraph + PostgresSaver (durability sync)', 1600, {}),
  timed('StateGraph + FlowSaver(PostgresCheckpointer) (durability sync)', 700, { flowSaver: true }),
];

describe('W8 floors', () => {
  it('gives saver rows what they add above MemorySaver and their ratio to the commit floor, and floor rows no saver ratio', () => {
    const rows = rowsOf(loop);
    const byLabel = (start: string) => rows.find((r) => r.label.startsWith(start))?.values;
    expect(byLabel('StateGraph + MemorySaver')).toMatchObject({ ratio: undefined, above: undefined });
    expect(byLabel('StateGraph, no checkpointer')).toMatchObject({ ratio: undefined, above: undefined });
    expect(byLabel('StateGraph + MemorySaver + one commit')).toMatchObject({
      ratio: undefined,
      best: undefined,
      above: 240,
    });
    expect(byLabel('StateGraph + PostgresSaver')).toMatchObject({
      ratio: 1600 / 700,
      above: 1200,
      aboveRatio: 4,
      best: 2.5,
    });
    expect(byLabel('StateGraph + FlowSaver')).toMatchObject({
      ratio: undefined,
      above: 300,
      best: undefined,
    });
  });

  it('reports the floor beside the target, and the target still reads the saver row', () => {
    const s = section({
      id: 'w8-loop',
      title: 'w8',
      detail: 'detail.',
      columns: [],
      ratioOf: 'ratio',
      better: 'higher',
    });
    s.rows.push(...rowsOf(loop));
    const targets = evaluateTargets([s]).filter(
      (t) => t.backend === 'postgres' && t.target.includes('durability sync'),
    );
    expect(targets.find((t) => t.target.startsWith('FlowSaver ≥ 2×'))).toMatchObject({
      measured: '2.286×',
      met: true,
    });
    expect(targets.find((t) => t.target.startsWith("LangGraph's engine on MemorySaver"))).toMatchObject({
      measured: "400 µs; FlowSaver +300, LangGraph's saver +1,200 µs/step",
      met: undefined,
    });
    expect(targets.find((t) => t.target.startsWith('a saver at the commit floor'))).toMatchObject({
      measured: '2.500× (target 2×)',
      met: undefined,
    });
  });
});
