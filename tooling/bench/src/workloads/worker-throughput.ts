import { dropSchema, uniqueSchema } from '@flow/test-db';
import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { section } from '../report/section.js';
import { median, rotate } from '../stats.js';
import type { BackendSuite } from '../stores/types.js';
import { spawnWorker, type WorkerChild } from './worker-children.js';
import { openDescribed, type RunGraphOptions, runGraph, type StoreDescriptor } from './worker-graph.js';

/** Worker processes per configuration. */
const PROCESSES = [1, 2, 4] as const;
const CONCURRENCY = 4;
const POLL_MS = 50;

/**
 * Worker throughput: `workers-runs` enqueued runs of `workers-steps` super-steps on Postgres, taken by 1, 2
 * and 4 worker processes (each `concurrency` 4). Each configuration's processes start and open the store
 * first; the clock runs from their start to the moment no run is left running. Configurations take turns.
 */
export async function workerThroughput(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const url = ctx.postgresUrl;
  if (url === undefined || !suites.some((s) => s.id === 'postgres')) return;
  const runs = ctx.options.sizes['workers-runs'];
  const steps = ctx.options.sizes['workers-steps'];
  const rounds = ctx.options.sizes['workers-rounds'];
  const s = section({
    id: 'workers',
    title: 'Worker throughput on Postgres',
    detail:
      `${runs} enqueued runs of ${steps} trivial super-steps, taken by 1, 2 and 4 worker processes ` +
      `(concurrency ${CONCURRENCY} each, pollMs ${POLL_MS}, a pool of ${CONCURRENCY + 1} connections each); ` +
      `timed from the workers' start until no run is left running; median of ${rounds} round(s), the ` +
      'configurations taking turns.',
    columns: [
      { key: 'runsPerSec', header: 'runs/s' },
      { key: 'stepsPerSec', header: 'steps/s' },
      { key: 'scaling', header: 'vs 1 process', digits: 2 },
    ],
    ratioOf: 'scaling',
    better: 'higher',
    notes: [
      'Every process and Postgres share the machine’s cores: the scaling shows what one store and one host ' +
        'allow, not what separate machines would.',
    ],
  });
  await rec.guard('workers', 'postgres', async () => {
    const schema = uniqueSchema();
    const drop = ctx.track(() => dropSchema(url, schema));
    const store: StoreDescriptor = { backend: 'postgres', url, schema, pool: CONCURRENCY + 1 };
    const graph: RunGraphOptions = { steps, sleepMs: 0, leaseMs: 30_000 };
    const producer = await openDescribed({ ...store, pool: 4 });
    const app = runGraph(producer.store, graph);
    const perSec = new Map<number, number[]>(PROCESSES.map((k) => [k, []]));
    try {
      for (let r = 0; r < rounds; r++) {
        for (const k of rotate([...PROCESSES], r)) {
          for (let i = 0; i < runs; i++) await app.enqueue({ n: 0 }, { thread: `p${k}-r${r}-${i}` });
          const children: WorkerChild[] = [];
          for (let i = 0; i < k; i++)
            children.push(spawnWorker({ store, graph, concurrency: CONCURRENCY, pollMs: POLL_MS }));
          try {
            await Promise.all(children.map((c) => c.ready));
            const t0 = performance.now();
            for (const c of children) c.go();
            while ((await producer.store.listThreads({ status: 'running', limit: 1 })).length > 0) {
              await new Promise((res) => setTimeout(res, 10));
            }
            const seconds = (performance.now() - t0) / 1000;
            perSec.get(k)?.push(runs / seconds);
          } finally {
            await Promise.all(children.map((c) => c.stop()));
          }
          const failed = await producer.store.listThreads({ status: 'failed', limit: 1 });
          if (failed.length > 0)
            throw new Error(`a run failed under ${k} worker(s): ${JSON.stringify(failed[0])}`);
          const done = await producer.store.listThreads({
            status: 'done',
            after: `p${k}-r${r}-`,
            limit: runs + 1,
          });
          const mine = done.filter((t) => t.thread.startsWith(`p${k}-r${r}-`));
          if (mine.length !== runs)
            throw new Error(`${mine.length} of ${runs} runs done under ${k} worker(s)`);
        }
      }
    } finally {
      await producer.close();
      await drop();
    }
    const one = median(perSec.get(1) ?? []);
    for (const k of PROCESSES) {
      const rps = median(perSec.get(k) ?? []);
      s.rows.push({
        backend: 'postgres',
        side: 'flow',
        label: `${k} worker process${k === 1 ? '' : 'es'}`,
        values: { runsPerSec: rps, stepsPerSec: rps * steps, scaling: rps / one },
      });
    }
    progress(
      `workers: ${PROCESSES.map((k) => `${k}: ${median(perSec.get(k) ?? []).toFixed(1)} runs/s`).join(' · ')}`,
    );
  });
  rec.add(s);
}
