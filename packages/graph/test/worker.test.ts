import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpointer } from '@flow/core';
import { describe, expect, it } from 'vitest';
import * as engine from '../src/index.js';
import { createWorker, START, StateGraph } from '../src/index.js';
import { counter } from './fixtures/worker-graphs.mjs';
import { allBackends, backends, tempDir } from './support/backends.js';
import { sleep, until } from './support/until.js';

const dir = tempDir();
let traces = 0;
const newTrace = () => {
  traces += 1;
  const path = join(dir, `trace-${traces}.log`);
  writeFileSync(path, '');
  return path;
};
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);
/** The trace as `thread step` lines, sorted (pids dropped). */
const ranSteps = (path: string) =>
  lines(path)
    .map((l) => l.split(' ').slice(0, 2).join(' '))
    .sort();

/** A one-node graph whose node waits for `open()`; counts its runs. */
function gated(checkpointer: Checkpointer, steps = 1, leaseMs?: number) {
  let open: () => void = () => {};
  let gate = new Promise<void>((r) => {
    open = r;
  });
  const seen = { runs: 0 };
  const app = new StateGraph<{ n: number }>()
    .addNode('slow', async (s) => {
      seen.runs += 1;
      await gate;
      return { n: s.n + 1 };
    })
    .addEdge(START, 'slow')
    .addConditionalEdges('slow', (s) => (s.n < steps ? 'slow' : '__end__'))
    .compile({ checkpointer, ...(leaseMs === undefined ? {} : { leaseMs }) });
  return {
    app,
    seen,
    open: () => open(),
    close: () => {
      gate = new Promise<void>((r) => {
        open = r;
      });
    },
  };
}

describe.each(allBackends())('workers on $name', (backend) => {
  it('a run whose update cannot be stored is taken once, logged as failed on record', {
    timeout: 30_000,
  }, async () => {
    const checkpointer = await backend.create();
    let runs = 0;
    const app = new StateGraph<{ n: number }>()
      .addNode('leak', () => {
        runs += 1;
        return { n: 1, callback: () => 1 } as never;
      })
      .addEdge(START, 'leak')
      .compile({ checkpointer });
    await app.enqueue({ n: 0 }, { thread: 'unstorable' });
    const log: string[] = [];
    const worker = createWorker(app, { pollMs: 20, log: (l) => log.push(l) });
    worker.start();
    await until(
      async () => (await checkpointer.listThreads({ status: 'failed' })).length === 1,
      'the failure',
    );
    await sleep(200); // ten polls: none takes the failed run again
    await worker.stop();
    expect(runs).toBe(1);
    expect(log).toEqual([
      expect.stringMatching(/run "unstorable" failed \(SERIALIZATION\), recorded on the thread$/),
    ]);
  });

  it('takes enqueued runs and runs each to the end, every step once', { timeout: 60_000 }, async () => {
    const checkpointer = await backend.create();
    const trace = newTrace();
    const app = counter(engine, checkpointer, { steps: 3, trace });
    const threads = ['q-1', 'q-2', 'q-3', 'q-4', 'q-5', 'q-6'];
    for (const thread of threads) await app.enqueue({ n: 0 }, { thread });
    const log: string[] = [];
    const worker = createWorker(app, { pollMs: 20, log: (l) => log.push(l) });
    worker.start();
    await until(async () => (await checkpointer.listThreads({ status: 'done' })).length === 6, 'six runs');
    await worker.stop();
    for (const thread of threads)
      expect(await app.getState(thread)).toMatchObject({ done: true, state: { n: 3 } });
    expect(ranSteps(trace)).toEqual(threads.flatMap((t) => [`${t} 1`, `${t} 2`, `${t} 3`]).sort());
    expect(log).toEqual([]);
    for (const thread of threads) expect(await checkpointer.getLease(thread)).toBeUndefined();
  });

  it('leaves a run with a live lease alone, however long it runs', { timeout: 30_000 }, async () => {
    const checkpointer = await backend.create();
    // 400 ms: a renewal is due every third of it; with 150 ms, a busy CI machine delayed one past the lease.
    const live = gated(checkpointer, 1, 400);
    const running = live.app.invoke({ n: 0 }, { thread: 'live' });
    await until(() => live.seen.runs === 1, 'the node to start');
    const log: string[] = [];
    const worker = createWorker(live.app, { pollMs: 20, log: (l) => log.push(l) });
    worker.start();
    // Four lease lengths: the lease lives only by its renewals, and the worker must not take the run.
    await sleep(1_600);
    expect(live.seen.runs).toBe(1);
    expect((await live.app.history('live')).map((c) => c.step)).toEqual([0]);
    live.open();
    expect(await running).toMatchObject({ status: 'done', state: { n: 1 } });
    await worker.stop();
    expect(live.seen.runs).toBe(1);
    expect(log).toEqual([]);
  });

  it('runs at most `concurrency` runs at once', { timeout: 60_000 }, async () => {
    const checkpointer = await backend.create();
    let active = 0;
    let most = 0;
    let runs = 0;
    const app = new StateGraph<{ n: number }>()
      .addNode('tick', async (s) => {
        active += 1;
        runs += 1;
        most = Math.max(most, active);
        await sleep(40);
        active -= 1;
        return { n: s.n + 1 };
      })
      .addEdge(START, 'tick')
      .addConditionalEdges('tick', (s) => (s.n < 2 ? 'tick' : '__end__'))
      .compile({ checkpointer });
    for (let i = 0; i < 9; i++) await app.enqueue({ n: 0 }, { thread: `c-${i}` });
    const worker = createWorker(app, { concurrency: 3, pollMs: 20, log: () => {} });
    worker.start();
    await until(async () => (await checkpointer.listThreads({ status: 'done' })).length === 9, 'nine runs');
    await worker.stop();
    expect(runs).toBe(18);
    expect(most).toBe(3);
  });

  it('stop() waits for the step in flight to commit, then the run stops; nothing new starts', {
    timeout: 30_000,
  }, async () => {
    const checkpointer = await backend.create();
    const g = gated(checkpointer, 3);
    await g.app.enqueue({ n: 0 }, { thread: 'draining' });
    const worker = createWorker(g.app, { concurrency: 1, pollMs: 20, log: () => {} });
    worker.start();
    await until(() => g.seen.runs === 1, 'the first step to start');
    let stopped = false;
    const stopping = worker.stop().then(() => {
      stopped = true;
    });
    await g.app.enqueue({ n: 0 }, { thread: 'late' });
    await sleep(150);
    expect(stopped).toBe(false);
    g.open();
    await stopping;
    // The step in flight committed (n: 1) and the run stopped before its next one, lease released.
    expect(await g.app.getState('draining')).toMatchObject({ done: false, state: { n: 1 } });
    expect(await checkpointer.getLease('draining')).toBeUndefined();
    await sleep(150);
    expect(g.seen.runs).toBe(1);
    expect((await g.app.history('late')).map((c) => c.step)).toEqual([0]);
    // Started again, it takes both up and finishes them.
    worker.start();
    await until(async () => (await checkpointer.listThreads({ status: 'done' })).length === 2, 'both runs');
    await worker.stop();
    expect(await g.app.getState('draining')).toMatchObject({ done: true, state: { n: 3 } });
  });
});

describe.each(backends)('a worker with more runs than one listing page on $name', (backend) => {
  it('pages through every running thread, wrapping around from its random start', {
    timeout: 60_000,
  }, async () => {
    const checkpointer = await backend.create();
    const app = counter(engine, checkpointer, { steps: 1 });
    // Ids that sort both before and after any random hex start point, more than a page (100) of them.
    const threads = Array.from({ length: 130 }, (_, i) => `${i % 2 === 0 ? '0' : 'z'}-${i}`);
    for (const thread of threads) await app.enqueue({ n: 0 }, { thread });
    const worker = createWorker(app, { concurrency: 8, pollMs: 20, log: () => {} });
    worker.start();
    await until(async () => (await checkpointer.listThreads({ status: 'done' })).length === 130, 'every run');
    await worker.stop();
  });
});

/** Enqueues `thread` at a node named `gone`, which the workers' graph (`counter`) does not have. */
async function enqueueForMissingNode(checkpointer: Checkpointer, thread: string): Promise<void> {
  const old = new StateGraph<{ n: number }>()
    .addNode('gone', (s) => ({ n: s.n + 1 }))
    .addEdge(START, 'gone')
    .compile({ checkpointer });
  await old.enqueue({ n: 0 }, { thread });
}

describe.each(backends)('a thread a worker cannot run on $name', (backend) => {
  it('is tried again after a wait that grows, one log line per try, and the worker goes on with others', {
    timeout: 30_000,
  }, async () => {
    const checkpointer = await backend.create();
    await enqueueForMissingNode(checkpointer, 'orphan');
    const app = counter(engine, checkpointer, { steps: 1 });
    const log: string[] = [];
    const worker = createWorker(app, { pollMs: 20, log: (l) => log.push(l) });
    worker.start();
    await app.enqueue({ n: 0 }, { thread: 'fine' });
    await sleep(1_300);
    expect(await app.getState('fine')).toMatchObject({ done: true });
    // Waits of 40, 80, 160, 320, 640 ms: a handful of tries in 1.3 s, not one per 20 ms poll.
    const tries = log.filter((l) => l.includes('"orphan"'));
    expect(tries.length).toBeGreaterThanOrEqual(3);
    expect(tries.length).toBeLessThanOrEqual(7);
    expect(tries[0]).toMatch(/GraphValidationError .*"gone".*this worker tries it again in 40 ms$/);
    await worker.stop();
    expect((await checkpointer.list('orphan')).map((c) => c.step)).toEqual([0]);
  });

  it('loses its wait once deleted: a new run under its id is taken at the next poll, not after the wait', {
    timeout: 30_000,
  }, async () => {
    const checkpointer = await backend.create();
    await enqueueForMissingNode(checkpointer, 'reborn');
    const app = counter(engine, checkpointer, { steps: 1 });
    const log: string[] = [];
    const worker = createWorker(app, { pollMs: 20, log: (l) => log.push(l) });
    worker.start();
    // The seventh failure sets a wait of 20 · 2^7 = 2,560 ms.
    await until(() => log.filter((l) => l.includes('"reborn"')).length >= 7, 'seven failed tries');
    expect(log.at(-1)).toMatch(/tries it again in 2560 ms$/);
    await checkpointer.deleteThread('reborn');
    await sleep(150); // a few polls that no longer list it
    const enqueued = Date.now();
    await app.enqueue({ n: 0 }, { thread: 'reborn' });
    await until(async () => (await app.getState('reborn'))?.done === true, 'the new run to finish', {
      timeoutMs: 10_000,
    });
    // Held back by the deleted thread's wait it would finish about 2.4 s after the enqueue.
    expect(Date.now() - enqueued).toBeLessThan(1_500);
    await worker.stop();
  });
});
