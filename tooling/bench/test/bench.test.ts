import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBench } from '../src/bench.js';
import type { BenchResult } from '../src/report/results.js';

const out = mkdtempSync(join(tmpdir(), 'flow-bench-test-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

// Tiny sizes: this proves the wiring (every workload, every backend, the report and the JSON), not speed.
const TINY = [
  ...['--w1-threads', '2', '--w1-steps', '3', '--w2-threads', '1', '--w2-steps', '1', '--w2-kb', '16'],
  ...['--w3-rounds', '1', '--w4-threads', '4', '--w4-steps', '1', '--w4-large-kb', '8', '--w4-reps', '1'],
  ...['--w5-steps', '6', '--w5-runs', '1', '--conc-runs', '3', '--conc-steps', '2'],
  ...['--w6-steps', '4', '--w6-msg-bytes', '2048'],
  ...['--w9-steps', '3', '--w9-base-kb', '8'],
  ...['--conc-rounds', '1', '--workers-runs', '3', '--workers-steps', '2', '--recovery-lease-ms', '300'],
];

describe('runBench', () => {
  it('runs every workload on every backend, prints the tables and writes the JSON', async () => {
    let printed = '';
    const code = await runBench(['--quick', ...TINY, '--out', out], (t) => {
      printed += t;
    });
    expect(code).toBe(0);
    for (const title of [
      'W1',
      'W2',
      'W3 get',
      'W3 list',
      'W4',
      'W5',
      'W6',
      'Concurrency',
      'Round trips',
      'Lease overhead',
      'Worker throughput',
      'Recovery after a SIGKILL',
      'Targets',
    ]) {
      expect(printed).toContain(`### ${title}`);
    }
    const files = readdirSync(out);
    const json = files.find((f) => f.endsWith('-quick.json'))!;
    expect(files).toContain(json.replace('.json', '.md'));
    const result = JSON.parse(readFileSync(join(out, json), 'utf8')) as BenchResult;
    expect(result.failures).toEqual([]);
    expect(result.sections.map((s) => s.id)).toEqual([
      'w1',
      'w3-get',
      'w3-list',
      'round-trips',
      'w2',
      'w4-small',
      'w4-large',
      'w5',
      'w7-w5',
      'w7-fanout',
      'conc',
      'w9',
      'w1-normal',
      'w3-get-normal',
      'w3-list-normal',
      'enc-w1',
      'enc-w3',
      'enc-w5',
      'lease',
      'workers',
      'recovery',
      'w8-loop',
      'w8-fanout',
      'w6',
    ]);
    // W6's run bytes leave out what the store held set up and empty: SQLite's and Postgres's schema. Its
    // messages are 2 KB here: 200-byte ones of a 4-step run fit in the pages SQLite's empty tables already have.
    const w6 = result.sections.find((s) => s.id === 'w6')!;
    for (const backend of ['sqlite', 'postgres']) {
      const { bytes, runBytes } = w6.rows.find((r) => r.backend === backend && r.side === 'flow')!.values;
      expect(runBytes).toBeGreaterThan(0);
      expect(runBytes).toBeLessThan(bytes!);
    }
    const w1 = result.sections.find((s) => s.id === 'w1')!;
    expect(w1.rows.map((r) => `${r.backend}/${r.side}`)).toContain('redis/flow');
    expect(w1.rows.find((r) => r.backend === 'sqlite' && r.side === 'flow')?.ratio).toBeGreaterThan(0);
    expect(result.machine.servers.postgres).toMatch(/^\d+/);
  }, 300_000); // every workload at tiny sizes: over 2 minutes on a loaded 2-core machine

  it('exits 2 with the usage on an unknown flag, and 1 when a server cannot be reached', async () => {
    expect(await runBench(['--bogus'], () => {})).toBe(2);
    const saved = process.env.FLOW_TEST_REDIS_URL;
    process.env.FLOW_TEST_REDIS_URL = 'redis://127.0.0.1:1';
    try {
      expect(await runBench(['--backends', 'redis', '--no-write'], () => {})).toBe(1);
    } finally {
      if (saved === undefined) delete process.env.FLOW_TEST_REDIS_URL;
      else process.env.FLOW_TEST_REDIS_URL = saved;
    }
  }, 30_000);
});
