import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  allDone,
  checkTaskLog,
  enqueuePaced,
  lostAcknowledged,
  runIds,
  unfinished,
  verifyRuns,
} from './chaos-runs.js';
import { count } from './figures.js';
import { seeded } from './seeded.js';
import { freshStore, type Store } from './stores.js';
import { pollUntil, WorkerFleet } from './worker-fleet.js';

/** Runs per backend, handed out over ENQUEUE_MS; worker processes; the wait between kills. */
export const RUNS = 200;
const ENQUEUE_MS = 3_000;
export const WORKERS = 3;
const KILL_EVERY_MS = [1000, 3000] as const;
/** Short, so a run whose owner is paused rather than dead is still taken over quickly. */
const LEASE_MS = 1500;
/** Give up (and fail) after this long. */
const LIMIT_MS = Number(process.env.FLOW_CHAOS_LIMIT_MS ?? 150_000);

/**
 * Worker processes on one store, one of them SIGKILLed every 1–3 s and replaced, while they run RUNS
 * enqueued runs of the chaos graph (fixtures/chaos-graph.mjs). Then every run must have finished exactly
 * once with the uninterrupted result, no step written twice, no acknowledged write missing, and the task's
 * `fn` never called after its value was stored.
 */
export function describeWorkerChaos(backend: 'file' | 'sqlite' | 'postgres' | 'redis'): void {
  describe(`${backend}: ${WORKERS} workers, one SIGKILLed every 1–3 s`, () => {
    let store: Store | undefined;
    let fleet: WorkerFleet | undefined;
    const logDir = mkdtempSync(join(tmpdir(), 'flow-rel-tasks-'));
    afterAll(async () => {
      await fleet?.killAll();
      await store?.remove();
      rmSync(logDir, { recursive: true, force: true });
    });

    it(
      `${RUNS} runs of a 10-step graph with a fan-out and a ctx.task: each finishes once, with the uninterrupted state, no step written twice, no task fn called after it completed`,
      async () => {
        const random = seeded(`workers: ${backend}`);
        const started = Date.now();
        store = freshStore(backend);
        const cp = store.open();
        await cp.setup();
        const threads = runIds(backend, RUNS);
        const taskLog = join(logDir, 'tasks.log');
        fleet = new WorkerFleet(store.opener!, taskLog, LEASE_MS);
        await Promise.all(Array.from({ length: WORKERS }, () => fleet!.start()));
        let enqueued: boolean | Error = false;
        const enqueuing = enqueuePaced(cp, threads, LEASE_MS, ENQUEUE_MS).then(
          () => (enqueued = true),
          (error: Error) => (enqueued = error),
        );

        const deadline = Date.now() + LIMIT_MS;
        const done = async () => {
          if (enqueued instanceof Error) throw enqueued;
          return enqueued && (await allDone(cp, RUNS));
        };
        while (!(await pollUntil(done, random.int(...KILL_EVERY_MS)))) {
          fleet.assertNoneCrashed();
          if (Date.now() > deadline)
            throw new Error(`runs not finished after ${LIMIT_MS} ms: ${await unfinished(cp)}`);
          await fleet.killOne(random);
          await fleet.start();
        }
        await enqueuing;
        fleet.assertNoneCrashed();
        await fleet.stopAll();

        const recoveries = await verifyRuns(cp, threads);
        const lost = await lostAcknowledged(cp, fleet.acknowledged());
        expect(lost, 'acknowledged writes missing').toBe(0);
        const tasks = checkTaskLog(taskLog, threads);
        // Runs arrive for ENQUEUE_MS and a kill comes at least every 3 s: kills did land among live runs.
        expect(fleet.kills, 'workers killed').toBeGreaterThanOrEqual(3);
        expect(recoveries, 'runs recovered from a killed worker').toBeGreaterThan(0);
        // charge spends half its run between the stored task value and its stored update: some kills
        // land there, and the re-run must have taken the stored value (else the check above proved little).
        expect(tasks.replayed, 're-runs of charge that got the stored task value').toBeGreaterThan(0);
        const seconds = (Date.now() - started) / 1000;
        console.log(
          `[workers: ${backend}] ${RUNS} runs, ${fleet.kills} kills, ${recoveries} recoveries, ` +
            `task fn ${tasks.calls} calls (${tasks.repeatedBeforeStored} before a value was stored, ` +
            `${tasks.replayed} re-runs got the stored value), ${seconds.toFixed(1)} s`,
        );
        const topic = `workers: ${backend}`;
        count(topic, 'runs finished', RUNS);
        count(topic, 'kills survived', fleet.kills);
        count(topic, 'recoveries', recoveries);
        count(topic, 'seconds', Math.round(seconds));
        count(topic, 'data lost', lost);
      },
      LIMIT_MS + 60_000,
    );
  });
}
