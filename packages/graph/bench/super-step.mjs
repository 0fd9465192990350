// µs per super-step of a 2-node loop of 200 steps, with no checkpointer, MemoryCheckpointer and
// SqliteCheckpointer; each in a process without AsyncLocalStorage and in one with it turned on.
// Run: pnpm --filter @flow/graph build && pnpm --filter @flow/graph bench   (not a test: numbers vary by machine)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { END, START, StateGraph } from '../dist/index.js';

const STEPS = 200;
const ROUNDS = Number(process.env.ROUNDS ?? 15);

function loop(checkpointer, asyncContext) {
  return new StateGraph()
    .addNode('ping', (s) => ({ n: s.n + 1 }))
    .addNode('pong', (s) => ({ n: s.n + 1 }))
    .addEdge(START, 'ping')
    .addEdge('ping', 'pong')
    .addConditionalEdges('pong', (s) => (s.n < STEPS ? 'ping' : END))
    .compile({ checkpointer, maxSteps: STEPS + 1, asyncContext });
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Median µs per super-step over ROUNDS runs (after 3 warm-up runs), each on a new thread: wall time, and CPU
 * time of this process (steadier on a busy machine, but blind to fsync waits).
 */
async function perStep(app) {
  const wall = [];
  const cpu = [];
  for (let i = 0; i < ROUNDS + 3; i++) {
    const t0 = process.hrtime.bigint();
    const c0 = process.cpuUsage();
    const run = await app.invoke({ n: 0 }, { thread: `bench-${process.pid}-${i}` });
    const c1 = process.cpuUsage(c0);
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    if (run.step !== STEPS) throw new Error(`expected ${STEPS} steps, ran ${run.step}`);
    if (i >= 3) {
      wall.push(us / STEPS);
      cpu.push((c1.user + c1.system) / STEPS);
    }
  }
  return { wall: median(wall), cpu: median(cpu) };
}

/** Median µs of one awaited MemoryCheckpointer#get: the "in-memory read" of the issue. */
async function memoryRead(asyncContext) {
  const memory = new MemoryCheckpointer();
  await loop(memory, asyncContext).invoke({ n: STEPS - 2 }, { thread: 'read' });
  const times = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) await memory.get('read');
    times.push(Number(process.hrtime.bigint() - t0) / 1000 / 1000);
  }
  return { wall: median(times), cpu: null };
}

async function measure(mode) {
  const asyncContext = mode === 'als';
  const dir = mkdtempSync(join(tmpdir(), 'flow-bench-'));
  try {
    const full = new SqliteCheckpointer(join(dir, 'full.db'));
    const normal = new SqliteCheckpointer(join(dir, 'normal.db'), { synchronous: 'normal' });
    const out = {
      none: await perStep(loop(undefined, asyncContext)),
      memory: await perStep(loop(new MemoryCheckpointer(), asyncContext)),
      sqliteFull: await perStep(loop(full, asyncContext)),
      sqliteNormal: await perStep(loop(normal, asyncContext)),
      memoryRead: await memoryRead(asyncContext),
    };
    await full.close();
    await normal.close();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const childMode = process.argv[2] === '--child' ? process.argv[3] : undefined;
if (childMode !== undefined) {
  process.stdout.write(JSON.stringify(await measure(childMode)));
} else {
  const run = (mode) => {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', mode], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout);
  };
  const plain = run('plain');
  const als = run('als');
  const rows = [
    ['no checkpointer', 'none'],
    ['MemoryCheckpointer', 'memory'],
    ['SqliteCheckpointer (synchronous: full)', 'sqliteFull'],
    ['SqliteCheckpointer (synchronous: normal)', 'sqliteNormal'],
    ['one MemoryCheckpointer#get (µs per read)', 'memoryRead'],
  ];
  const f = (v) => (v === null ? '–' : v.toFixed(1));
  console.log(
    `node ${process.version}, ${STEPS}-step loop of 2 nodes, median of ${ROUNDS} runs, µs per super-step`,
  );
  console.log('| case | wall, no ALS | wall, ALS on | CPU, no ALS | CPU, ALS on |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [label, key] of rows) {
    const [p, a] = [plain[key], als[key]];
    console.log(`| ${label} | ${f(p.wall)} | ${f(a.wall)} | ${f(p.cpu)} | ${f(a.cpu)} |`);
  }
}
