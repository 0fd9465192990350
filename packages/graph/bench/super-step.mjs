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
const ROUNDS = Number(process.env.ROUNDS ?? 7);
// Processes with and without AsyncLocalStorage alternate, so a busy machine's drift hits both alike.
const PAIRS = Number(process.env.PAIRS ?? 5);

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

/** Median µs per super-step over ROUNDS runs (after `warmup` runs for the JIT), each on a new thread. */
async function perStep(app, warmup) {
  const times = [];
  for (let i = 0; i < ROUNDS + warmup; i++) {
    const t0 = process.hrtime.bigint();
    const run = await app.invoke({ n: 0 }, { thread: `bench-${process.pid}-${i}` });
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    if (run.step !== STEPS) throw new Error(`expected ${STEPS} steps, ran ${run.step}`);
    if (i >= warmup) times.push(us / STEPS);
  }
  return median(times);
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
  return median(times);
}

/** Median µs of an async call that awaits two others: plain promise-heavy code, not the engine. */
async function promiseChain() {
  const leaf = async (i) => {
    await null;
    return i;
  };
  const mid = async (i) => (await leaf(i)) + (await leaf(i));
  const times = [];
  for (let r = 0; r < ROUNDS + 3; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 20000; i++) await mid(i);
    if (r >= 3) times.push(Number(process.hrtime.bigint() - t0) / 1000 / 20000);
  }
  return median(times);
}

async function measure(mode) {
  const asyncContext = mode === 'als';
  const dir = mkdtempSync(join(tmpdir(), 'flow-bench-'));
  try {
    const full = new SqliteCheckpointer(join(dir, 'full.db'));
    const normal = new SqliteCheckpointer(join(dir, 'normal.db'), { synchronous: 'normal' });
    const out = {
      none: await perStep(loop(undefined, asyncContext), 50),
      memory: await perStep(loop(new MemoryCheckpointer(), asyncContext), 20),
      sqliteFull: await perStep(loop(full, asyncContext), 2),
      sqliteNormal: await perStep(loop(normal, asyncContext), 5),
      memoryRead: await memoryRead(asyncContext),
      promises: await promiseChain(),
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
  const plain = [];
  const als = [];
  for (let i = 0; i < PAIRS; i++) {
    plain.push(run('plain'));
    als.push(run('als'));
  }
  const rows = [
    ['no checkpointer', 'none'],
    ['MemoryCheckpointer', 'memory'],
    ['SqliteCheckpointer (synchronous: full, the default)', 'sqliteFull'],
    ['SqliteCheckpointer (synchronous: normal)', 'sqliteNormal'],
    ['one awaited MemoryCheckpointer#get, µs per read', 'memoryRead'],
    ['plain code: an async call awaiting two others, µs per call', 'promises'],
  ];
  const at = (results, key) => median(results.map((r) => r[key]));
  console.log(
    `node ${process.version}, ${STEPS}-step loop of 2 nodes; µs per super-step, median of ${PAIRS} processes ` +
      `× ${ROUNDS} runs`,
  );
  console.log('| case | AsyncLocalStorage never created | AsyncLocalStorage on | ratio |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [label, key] of rows) {
    const [p, a] = [at(plain, key), at(als, key)];
    console.log(`| ${label} | ${p.toFixed(1)} | ${a.toFixed(1)} | ${(a / p).toFixed(2)}× |`);
  }
}
