import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Checkpointer } from '@flow/core';
import { describe, expect, it } from 'vitest';
import * as engine from '../src/index.js';
import { createWorker } from '../src/index.js';
import { counter } from './fixtures/worker-graphs.mjs';
import { allBackends, type Backend, tempDir } from './support/backends.js';
import { type Child, runFixture } from './support/child.js';
import { until } from './support/until.js';

// Workers and runs in real processes, killed with SIGKILL, on every backend a second process can open.
const dir = tempDir();
let traces = 0;
const newTrace = () => {
  traces += 1;
  const path = join(dir, `trace-${traces}.log`);
  writeFileSync(path, '');
  return path;
};
/** The trace's lines as [thread, step, pid]. */
const traced = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ') as [string, string, string]);

describe.each(allBackends().filter((b) => b.openInChild))(
  'workers across processes on $name',
  (backend: Backend) => {
    const open = async () => {
      const checkpointer = await backend.create();
      return { checkpointer, store: backend.openInChild?.(checkpointer) };
    };
    const child = (store: unknown, options: object, action: 'work' | 'invoke', extra: object): Child =>
      runFixture(
        'worker-child.mjs',
        [store, 'counter', options, action, extra].map((a) => JSON.stringify(a)),
      );
    const stopChild = async (c: Child) => {
      c.process.stdin?.write('stop\n');
      await c.line(/^stopped/);
      expect(await c.exited).toMatchObject({ code: 0 });
    };
    const doneCount = async (cp: Checkpointer) => (await cp.listThreads({ status: 'done' })).length;

    it('a run whose process was SIGKILLed mid-step, lease left behind, is recovered by a worker in another process', {
      timeout: 60_000,
    }, async () => {
      const { checkpointer, store } = await open();
      const trace = newTrace();
      const options = { steps: 3, trace, hangAt: 1 };
      const c = child(store, options, 'invoke', { thread: 'crashed' });
      await c.line(/^hanging crashed/);
      c.process.kill('SIGKILL');
      expect(await c.exited).toMatchObject({ signal: 'SIGKILL' });
      // The dead run left its lease (nobody released it), which is not live since its pid is gone, and a running
      // thread at its last committed step.
      expect(await checkpointer.getLease('crashed')).toBeUndefined();
      expect(await checkpointer.get('crashed')).toMatchObject({ step: 1, state: { n: 1 }, done: false });
      const app = counter(engine, checkpointer, { steps: 3, trace });
      const worker = createWorker(app, { pollMs: 20, log: () => {} });
      worker.start();
      await until(async () => (await checkpointer.get('crashed'))?.done === true, 'the recovered run');
      await worker.stop();
      expect((await checkpointer.get('crashed'))?.state).toEqual({ n: 3 });
      // Step 0 ran once (in the dead process); the step it died in ran again here, then the rest.
      const runs = traced(trace).map(
        ([, step, pid]) => `${step} ${pid === String(process.pid) ? 'worker' : 'dead'}`,
      );
      expect(runs).toEqual(['0 dead', '1 dead', '2 worker', '3 worker']);
    });

    it('a run alive in another process is never taken over, however long it runs; once that process dies it is', {
      timeout: 60_000,
    }, async () => {
      const { checkpointer, store } = await open();
      const trace = newTrace();
      const c = child(store, { steps: 3, trace, hangAt: 1, leaseMs: 500 }, 'invoke', { thread: 'alive' });
      await c.line(/^hanging alive/);
      const app = counter(engine, checkpointer, { steps: 3, trace });
      const log: string[] = [];
      const worker = createWorker(app, { pollMs: 20, log: (l) => log.push(l) });
      worker.start();
      // Four lease lengths: only the other process's renewals keep its lease live.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(
        traced(trace).map(([, step, pid]) => `${step} ${pid === String(process.pid) ? 'worker' : 'owner'}`),
      ).toEqual(['0 owner', '1 owner']);
      expect(await checkpointer.getLease('alive')).toMatchObject({ pid: c.process.pid });
      c.process.kill('SIGKILL');
      await c.exited;
      await until(
        async () => (await checkpointer.get('alive'))?.done === true,
        'the run after its owner died',
      );
      await worker.stop();
      expect(log).toEqual([]);
      expect(traced(trace).filter(([, , pid]) => pid === String(process.pid)).length).toBe(2);
    });

    it('three worker processes on one store run every enqueued run to the end, each step once', {
      timeout: 90_000,
    }, async () => {
      const { checkpointer, store } = await open();
      const trace = newTrace();
      const options = { steps: 4, trace, sleepMs: 5 };
      const app = counter(engine, checkpointer, options);
      const threads = Array.from({ length: 12 }, (_, i) => `multi-${String(i).padStart(2, '0')}`);
      for (const thread of threads) await app.enqueue({ n: 0 }, { thread });
      const workers = [0, 1, 2].map(() => child(store, options, 'work', { concurrency: 2, pollMs: 20 }));
      await Promise.all(workers.map((w) => w.line(/^started/)));
      await until(async () => (await doneCount(checkpointer)) === 12, 'twelve runs', { timeoutMs: 60_000 });
      await Promise.all(workers.map(stopChild));
      for (const thread of threads)
        expect(await app.getState(thread)).toMatchObject({ done: true, state: { n: 4 } });
      // No step ran twice: a live run was never taken over by another worker.
      const steps = traced(trace).map(([thread, step]) => `${thread} ${step}`);
      expect(steps.sort()).toEqual(threads.flatMap((t) => [1, 2, 3, 4].map((s) => `${t} ${s}`)).sort());
      // Races lost to another worker (ThreadBusy, AlreadyResumed) are not failures: nothing was logged.
      for (const w of workers) {
        expect(w.stderr()).toBe('');
        expect(w.lines.filter((l) => l.startsWith('log '))).toEqual([]);
      }
    });

    it('a run that kills its process every time is marked failed after maxRecoveries takes, counted across the dead processes', {
      timeout: 90_000,
    }, async () => {
      const { checkpointer, store } = await open();
      const trace = newTrace();
      const options = { steps: 3, trace, killAt: 1 };
      const app = counter(engine, checkpointer, options);
      await app.enqueue({ n: 0 }, { thread: 'poison' });
      const failed = async () => (await checkpointer.listThreads({ status: 'failed' })).length === 1;
      let killed = 0;
      let survivor: Child | undefined;
      // One worker process after another: each dies in the poison node, until one marks the run failed.
      while (survivor === undefined && killed < 10) {
        const w = child(store, options, 'work', { maxRecoveries: 3, pollMs: 20 });
        const ended = await Promise.race([
          w.exited.then(() => 'exited' as const),
          until(failed, 'the failed mark', { timeoutMs: 30_000 }).then(() => 'failed' as const),
        ]);
        if (ended === 'exited') {
          expect(await w.exited).toMatchObject({ signal: 'SIGKILL' });
          killed += 1;
        } else survivor = w;
      }
      if (survivor === undefined) throw new Error('no worker marked the poison run failed');
      await survivor.line(/marked failed/);
      await stopChild(survivor);
      // The first take (no recovery: the run was only enqueued) claimed step 1, committed step 2 and died in the
      // node reading it; then three takes in a row (claims 3, 4, 5) died without committing a step, and the fifth
      // take wrote the failed step 6.
      expect(killed).toBe(4);
      expect(traced(trace).map(([, step]) => step)).toEqual(['1', '2', '3', '4', '5']);
      const [info] = await checkpointer.listThreads({ status: 'failed' });
      expect(info).toMatchObject({ thread: 'poison', failed: true, error: { node: 'tick' } });
      expect(info?.error?.message).toMatch(/3 times without committing a step \(maxRecoveries\)/);
      const claims = (await app.history('poison')).map((c) => c.meta.recoveries).reverse();
      expect(claims).toEqual([undefined, undefined, undefined, 1, 2, 3, 3]);
      expect(await checkpointer.getLease('poison')).toBeUndefined();
      // A resume by hand (after the fix) runs it again from the failed checkpoint, with a fresh count.
      const fixed = counter(engine, checkpointer, { steps: 3 });
      expect(await fixed.resume('poison')).toMatchObject({ status: 'done', state: { n: 3 } });
    });
    it('the first take of an enqueued run is no recovery: a poison first node runs 1 + maxRecoveries times', {
      timeout: 60_000,
    }, async () => {
      const { checkpointer, store } = await open();
      const trace = newTrace();
      const options = { steps: 3, trace, killAt: 0 };
      const app = counter(engine, checkpointer, options);
      await app.enqueue({ n: 0 }, { thread: 'poison-first' });
      const failed = async () =>
        (await checkpointer.listThreads({ status: 'failed' })).some((t) => t.thread === 'poison-first');
      let killed = 0;
      let survivor: Child | undefined;
      while (survivor === undefined && killed < 10) {
        const w = child(store, options, 'work', { maxRecoveries: 1, pollMs: 20 });
        const ended = await Promise.race([
          w.exited.then(() => 'exited' as const),
          until(failed, 'the failed mark', { timeoutMs: 30_000 }).then(() => 'failed' as const),
        ]);
        if (ended === 'exited') killed += 1;
        else survivor = w;
      }
      if (survivor === undefined) throw new Error('no worker marked the poison run failed');
      await stopChild(survivor);
      // Its first run (claim 1) and one recovery (claim 2) died; the next take wrote the failed step 3.
      expect(killed).toBe(2);
      expect(traced(trace).map(([, step]) => step)).toEqual(['1', '2']);
      const claims = (await app.history('poison-first')).map((c) => c.meta.recoveries).reverse();
      expect(claims).toEqual([undefined, undefined, 1, 1]);
    });
  },
);
