import { dropSchema, uniqueSchema } from '@flow/test-db';
import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import { formatNumber } from '../report/format.js';
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
/** How long each node waits: trivial (the store and the engine are the work), and like an API call. */
const NODE_MS = [0, 20] as const;

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
      `${runs} enqueued runs of ${steps} super-steps (trivial nodes, and nodes that wait ${NODE_MS[1]} ms like an ` +
      'API call), taken by 1, 2 and 4 worker processes ' +
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
      'Every process and Postgres share the machine’s cores: with trivial nodes the work is CPU (engine, driver, ' +
        'Postgres), and more processes on the same cores mostly compete for them; with waiting nodes the runs ' +
        'in flight (4 per process) set the pace, which is how workers scale on separate machines.',
    ],
  });
  await rec.guard('workers', 'postgres', async () => {
    const schema = uniqueSchema();
    const drop = ctx.track(() => dropSchema(url, schema));
    const store: StoreDescriptor = { backend: 'postgres', url, schema, pool: CONCURRENCY + 1 };
    const producer = await openDescribed({ ...store, pool: 4 });
    const configs = NODE_MS.flatMap((sleepMs) => PROCESSES.map((k) => ({ sleepMs, k })));
    const key = (c: { sleepMs: number; k: number }) => `${c.sleepMs}:${c.k}`;
    const perSec = new Map<string, number[]>(configs.map((c) => [key(c), []]));
    // One set of processes for every configuration: a configuration starts the first k and pauses them after.
    const graph: RunGraphOptions = { steps, sleepMs: 0, leaseMs: 30_000 };
    const app = runGraph(producer.store, graph);
    const most = Math.max(...PROCESSES);
    const children: WorkerChild[] = [];
    try {
      for (let i = 0; i < most; i++)
        children.push(spawnWorker({ store, graph, concurrency: CONCURRENCY, pollMs: POLL_MS }));
      await Promise.all(children.map((w) => w.ready));
      for (let r = 0; r < rounds; r++) {
        for (const c of rotate(configs, r)) {
          const tag = `s${c.sleepMs}-p${c.k}-r${r}-`;
          for (let i = 0; i < runs; i++)
            await app.enqueue({ n: 0, sleepMs: c.sleepMs }, { thread: `${tag}${i}` });
          const active = children.slice(0, c.k);
          const t0 = performance.now();
          for (const w of active) w.go();
          while ((await producer.store.listThreads({ status: 'running', limit: 1 })).length > 0) {
            await new Promise((res) => setTimeout(res, 10));
          }
          perSec.get(key(c))?.push(runs / ((performance.now() - t0) / 1000));
          await Promise.all(active.map((w) => w.pause()));
          const failed = await producer.store.listThreads({ status: 'failed', limit: 1 });
          if (failed.length > 0)
            throw new Error(`a run failed under ${key(c)}: ${JSON.stringify(failed[0])}`);
          const done = await producer.store.listThreads({ status: 'done', after: tag, limit: runs + 1 });
          const mine = done.filter((t) => t.thread.startsWith(tag)).length;
          if (mine !== runs) throw new Error(`${mine} of ${runs} runs done under ${key(c)}`);
        }
      }
    } finally {
      await Promise.all(children.map((w) => w.stop()));
      await producer.close();
      await drop();
    }
    for (const sleepMs of NODE_MS) {
      const one = median(perSec.get(key({ sleepMs, k: 1 })) ?? []);
      for (const k of PROCESSES) {
        const rps = median(perSec.get(key({ sleepMs, k })) ?? []);
        s.rows.push({
          backend: 'postgres',
          side: 'flow',
          label: `${k} worker process${k === 1 ? '' : 'es'}, ${sleepMs === 0 ? 'trivial nodes' : `${sleepMs} ms nodes`}`,
          values: { runsPerSec: rps, stepsPerSec: rps * steps, scaling: rps / one, nodeMs: sleepMs },
        });
      }
    }
    progress(
      `workers: ${s.rows.map((row) => `${row.label} ${formatNumber(row.values.runsPerSec)} runs/s`).join(' · ')}`,
    );
  });
  rec.add(s);
}
