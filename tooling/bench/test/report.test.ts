import { describe, expect, it } from 'vitest';
import { formatBytes, formatNumber, formatRatio } from '../src/report/format.js';
import { Recorder } from '../src/report/recorder.js';
import { fillRatios, type Section, section } from '../src/report/section.js';
import { renderSection } from '../src/report/table.js';
import { evaluateTargets } from '../src/report/targets.js';

function putsSection(id: string, rates: Record<string, [number, number, number?]>): Section {
  const s = section({
    id,
    title: id,
    detail: 'detail.',
    columns: [{ key: 'rate', header: 'puts/s' }],
    ratioOf: 'rate',
    better: 'higher',
  });
  for (const [backend, [raw, flow, lg]] of Object.entries(rates)) {
    s.rows.push({ backend, side: 'raw', label: 'raw', values: { rate: raw } });
    s.rows.push({ backend, side: 'flow', label: 'flow', values: { rate: flow } });
    if (lg !== undefined) s.rows.push({ backend, side: 'langgraph', label: 'lg', values: { rate: lg } });
  }
  return fillRatios(s);
}

describe('ratios', () => {
  it('puts @flow over raw and LangGraph over @flow, within one backend', () => {
    const s = putsSection('w1', { sqlite: [1000, 900, 300], redis: [500, 600] });
    const ratio = (backend: string, side: string) =>
      s.rows.find((r) => r.backend === backend && r.side === side)?.ratio;
    expect(ratio('sqlite', 'flow')).toBeCloseTo(0.9);
    expect(ratio('sqlite', 'langgraph')).toBeCloseTo(300 / 900);
    expect(ratio('redis', 'flow')).toBeCloseTo(1.2);
    expect(ratio('sqlite', 'raw')).toBeUndefined();
  });

  it('renders a table with both ratio columns and says which way is better', () => {
    const text = renderSection(putsSection('w1', { sqlite: [1000, 900, 300] }));
    expect(text).toContain('| backend | side');
    expect(text).toContain('@flow/raw');
    expect(text).toContain('LangGraph/@flow');
    expect(text).toContain('0.90×');
    expect(text).toContain('0.33×');
    expect(text).toContain('higher is better');
  });
});

describe('targets', () => {
  it('marks each backend met, missed or not run, and never throws on a miss', () => {
    const targets = evaluateTargets([putsSection('w1', { sqlite: [1000, 850], postgres: [1000, 700] })]);
    const w1 = targets.filter((t) => t.target.startsWith('put ≥ 0.8× raw throughput (W1)'));
    expect(w1.map((t) => [t.backend, t.met])).toEqual([
      ['sqlite', true],
      ['postgres', false],
      ['redis', undefined],
    ]);
    const w1Next = targets.filter((t) => t.target.startsWith('put ≥ 0.9× raw throughput (W1)'));
    expect(w1Next.map((t) => [t.backend, t.met])).toEqual([
      ['sqlite', false],
      ['postgres', false],
      ['redis', undefined],
    ]);
    expect(targets.find((t) => t.target.includes('statements'))?.met).toBeUndefined();
  });

  it('holds durable nodes to 1.1× the engine before them, and Postgres to no extra statement per step', () => {
    const w7 = section({
      id: 'w7-w5',
      title: 'w7',
      detail: 'detail.',
      columns: [{ key: 'ratio', header: 'after/before' }],
      ratioOf: 'ratio',
      better: 'lower',
    });
    const row = (backend: string, ratio: number, stmtsBefore?: number, stmtsAfter?: number) =>
      w7.rows.push({ backend, side: 'flow', label: 'W5', values: { ratio, stmtsBefore, stmtsAfter } });
    row('memory', 1.09);
    row('sqlite', 1.11);
    row('postgres', 1.0, 1.01, 1.04);
    const targets = evaluateTargets([w7]);
    const ratios = targets.filter((t) => t.target.startsWith('W5 with durable nodes ≤ 1.1×'));
    expect(ratios.map((t) => [t.backend, t.met])).toEqual([
      ['memory', true],
      ['sqlite', false],
      ['postgres', true],
    ]);
    const stmts = targets.find((t) => t.target.includes('no extra statement'));
    expect([stmts?.measured, stmts?.met]).toEqual(['1.04 vs 1.01', false]);
  });
});

describe('format', () => {
  it('groups thousands, keeps three significant digits below, and marks missing values', () => {
    expect(formatNumber(12345.6)).toBe('12,346');
    expect(formatNumber(0.012345)).toBe('0.0123');
    expect(formatNumber(1.5, 2)).toBe('1.50');
    expect(formatNumber(undefined)).toBe('–');
    expect(formatRatio(0.8)).toBe('0.80×');
    expect(formatBytes(1536)).toBe('1.5 KB');
  });
});

describe('Recorder', () => {
  it('records a workload that throws and goes on with the next one', async () => {
    const rec = new Recorder();
    await rec.guard('w1', 'sqlite', async () => {
      throw new Error('disk on fire');
    });
    let ran = false;
    await rec.guard('w1', 'redis', async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    expect(rec.failures).toHaveLength(1);
    expect(rec.failures[0]).toMatchObject({ workload: 'w1', backend: 'sqlite' });
    expect(rec.failures[0]!.message).toContain('disk on fire');
  });
});
