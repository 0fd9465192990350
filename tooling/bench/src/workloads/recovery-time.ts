import { createWorker } from '@flow/graph';
import { deleteKeys, dropSchema, uniquePrefix, uniqueSchema } from '@flow/test-db';
import type { BenchContext } from '../context.js';
import { progress } from '../progress.js';
import type { Recorder } from '../report/recorder.js';
import { section } from '../report/section.js';
import { median } from '../stats.js';
import type { BackendSuite } from '../stores/types.js';
import { spawnWorker } from './worker-children.js';
import { openDescribed, type RunGraphOptions, runGraph, type StoreDescriptor } from './worker-graph.js';

const POLL_MS = 100;
/** The host name the killed worker's leases carry, so the dead-owner rule of this machine cannot apply. */
const OTHER_HOST = 'bench-other-host';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Recovery time: a run is taken by a worker process that pretends to be on another host; once it has
 * committed a few steps it is SIGKILLed at a random moment of its lease's renewal cycle, and a worker in this
 * process (already polling) takes the run when the lease expires. Measured: seconds from the kill to the
 * takeover's claim, and to the next super-step it commits.
 */
export async function recoveryTime(
  ctx: BenchContext,
  suites: readonly BackendSuite[],
  rec: Recorder,
): Promise<void> {
  const samples = ctx.options.sizes['recovery-samples'];
  const leaseMs = ctx.options.sizes['recovery-lease-ms'];
  const s = section({
    id: 'recovery',
    title: 'Recovery after a SIGKILL on another host',
    detail:
      `leaseMs ${leaseMs} (renewed every ${Math.round(leaseMs / 3)} ms), pollMs ${POLL_MS}; the killed worker's ` +
      'leases name another host, so the run waits for its lease to expire; killed at a random moment after ' +
      `a few committed steps; median of ${samples} kill(s).`,
    columns: [
      { key: 'claim', header: 'to takeover s' },
      { key: 'step', header: 'to next step s' },
      { key: 'worst', header: 'slowest s' },
      { key: 'ofLease', header: 'next step / leaseMs', digits: 2 },
    ],
    ratioOf: 'ofLease',
    better: 'lower',
    notes: [
      'A lease is renewed every leaseMs / 3, so at a kill it has between 2/3 and all of leaseMs left: recovery ' +
        'takes that, plus up to pollMs until a worker looks. On the same host a dead owner is seen at once.',
    ],
  });
  for (const suite of suites) {
    if (suite.id !== 'postgres' && suite.id !== 'redis') continue;
    const url = suite.id === 'postgres' ? ctx.postgresUrl : ctx.redisUrl;
    if (url === undefined) continue;
    await rec.guard('recovery', suite.id, async () => {
      let store: StoreDescriptor;
      let drop: () => Promise<void>;
      if (suite.id === 'postgres') {
        const schema = uniqueSchema();
        drop = ctx.track(() => dropSchema(url, schema));
        store = { backend: 'postgres', url, schema, pool: 3 };
      } else {
        const prefix = uniquePrefix();
        drop = ctx.track(async () => {
          await deleteKeys(url, prefix);
        });
        store = { backend: 'redis', url, prefix };
      }
      const graph: RunGraphOptions = { steps: 100_000, sleepMs: 20, leaseMs };
      const local = await openDescribed(store);
      const app = runGraph(local.store, graph);
      const claims: number[] = [];
      const steps: number[] = [];
      try {
        for (let i = 0; i < samples; i++) {
          const thread = `recovery-${i}`;
          await app.enqueue({ n: 0 }, { thread });
          const doomed = spawnWorker({ store, graph, concurrency: 1, pollMs: POLL_MS, host: OTHER_HOST });
          await doomed.ready;
          doomed.go();
          while (((await local.store.get(thread))?.step ?? 0) < 4) await sleep(10);
          const lease = await local.store.getLease(thread);
          if (lease?.host !== OTHER_HOST)
            throw new Error(`the lease names ${lease?.host}, not ${OTHER_HOST}`);
          const rescuer = createWorker(app, { pollMs: POLL_MS, concurrency: 1, log: () => {} });
          rescuer.start();
          await sleep(Math.random() * (leaseMs / 3));
          const t0 = performance.now();
          await doomed.kill();
          const at = (await local.store.get(thread))?.step ?? 0;
          let claimed: number | undefined;
          for (;;) {
            const step = (await local.store.get(thread))?.step ?? 0;
            const now = performance.now();
            if (claimed === undefined && step > at) claimed = now;
            if (step >= at + 2) {
              claims.push(((claimed ?? now) - t0) / 1000);
              steps.push((now - t0) / 1000);
              break;
            }
            if (now - t0 > leaseMs * 3) throw new Error(`no takeover ${leaseMs * 3} ms after the kill`);
            await sleep(5);
          }
          await rescuer.stop();
          // The run stays running once the rescuer stops: remove it, so the next sample's workers see only theirs.
          await local.store.deleteThread(thread);
        }
      } finally {
        await local.close();
        await drop();
      }
      const step = median(steps);
      s.rows.push({
        backend: suite.id,
        side: 'flow',
        label: `${suite.id === 'postgres' ? 'PostgresCheckpointer' : 'RedisCheckpointer'}, leaseMs ${leaseMs}`,
        values: {
          claim: median(claims),
          step,
          worst: Math.max(...steps),
          ofLease: step / (leaseMs / 1000),
          leaseMs,
        },
      });
      progress(`recovery ${suite.id}: ${step.toFixed(2)} s to the next step (median of ${samples})`);
    });
  }
  rec.add(s);
}
