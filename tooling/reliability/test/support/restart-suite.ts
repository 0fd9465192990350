import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildOpener } from '@flow/checkpoint-conformance';
import type { Checkpointer } from '@flow/core';
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
import { sleep } from './crash.js';
import { count } from './figures.js';
import type { OwnServer } from './own-servers.js';
import { seeded } from './seeded.js';
import { pollUntil, WorkerFleet } from './worker-fleet.js';

const RUNS = 60;
const WORKERS = 3;
/** Each restart comes once the workers have acknowledged this share more of the runs' steps. */
const RESTARTS = 2;
/** Checkpoints a run's workers write: its claim and ten super-steps (the parent writes step 0). */
const PUTS_PER_RUN = 11;
const LEASE_MS = 1500;
const LIMIT_MS = 120_000;

/** `fn`, tried again while it fails with StorageError (the pool's connections died with the server). */
async function whenReachable<T>(fn: () => Promise<T>, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if ((error as { code?: string }).code !== 'STORAGE' || Date.now() > until) throw error;
      await sleep(100);
    }
  }
}

/** The server under test, and how a checkpointer (in the test and in each worker) opens a store on it. */
export interface RestartTarget {
  name: 'postgres' | 'redis';
  start(): Promise<OwnServer>;
  opener(url: string): ChildOpener;
  open(url: string): Checkpointer;
  /** How the server is stopped, for the test's name. */
  how: string;
}

/**
 * Worker processes running runs on a server of the test's own, which is stopped (Postgres: `pg_ctl stop`,
 * immediate then fast; Redis: SIGKILL) and started again twice while runs are in flight. Every write a
 * worker saw acknowledged must still be stored afterwards, and every run must finish, once, with the
 * uninterrupted result: the runs resume once the server is back.
 */
export function describeServerRestarts(target: RestartTarget): void {
  describe(`${target.name}: the server ${target.how} under load, ${RESTARTS} times`, () => {
    let server: OwnServer | undefined;
    let fleet: WorkerFleet | undefined;
    let cp: Checkpointer | undefined;
    const logDir = mkdtempSync(join(tmpdir(), 'flow-rel-tasks-'));
    afterAll(async () => {
      await fleet?.killAll();
      await cp?.close().catch(() => {});
      await server?.destroy();
      rmSync(logDir, { recursive: true, force: true });
    });

    it(
      `${RUNS} runs by ${WORKERS} workers: no acknowledged step lost, the runs resume once the server is back and finish with the uninterrupted state`,
      async () => {
        const random = seeded(`restarts: ${target.name}`);
        const started = Date.now();
        server = await target.start();
        cp = target.open(server.url);
        await cp.setup();
        const threads = runIds(`restart-${target.name}`, RUNS);
        const taskLog = join(logDir, 'tasks.log');
        fleet = new WorkerFleet(target.opener(server.url), taskLog, LEASE_MS);
        await Promise.all(Array.from({ length: WORKERS }, () => fleet!.start()));
        const enqueuing = enqueuePaced(cp, threads, LEASE_MS, 1500);

        const modes = ['immediate', 'fast'] as const;
        for (let r = 0; r < RESTARTS; r++) {
          const due = Math.floor(((r + 1) * RUNS * PUTS_PER_RUN) / (RESTARTS + 1));
          const reached = await pollUntil(async () => fleet!.putsAcknowledged() >= due, 60_000);
          expect(reached, `${due} steps acknowledged before restart ${r + 1}`).toBe(true);
          fleet.assertNoneCrashed();
          await server.stop(modes[r % modes.length]);
          // Everything acknowledged until now was acknowledged before the server went down.
          const before = fleet.acknowledged();
          // Down long enough for every worker to fail calls, renewals and polls.
          await sleep(random.int(500, 1500));
          await server.start();
          const lostNow = await whenReachable(() => lostAcknowledged(cp!, before));
          expect(lostNow, `acknowledged writes missing right after restart ${r + 1}`).toBe(0);
        }
        await enqueuing;

        const finished = await pollUntil(() => allDone(cp!, RUNS), LIMIT_MS);
        if (!finished) throw new Error(`runs not finished after ${LIMIT_MS} ms: ${await unfinished(cp)}`);
        fleet.assertNoneCrashed();
        await fleet.stopAll();

        const acked = fleet.acknowledged();
        const lost = await lostAcknowledged(cp, acked);
        expect(lost, 'acknowledged writes missing after the restarts').toBe(0);
        const recoveries = await verifyRuns(cp, threads);
        const tasks = checkTaskLog(taskLog, threads);
        const seconds = (Date.now() - started) / 1000;
        console.log(
          `[restarts: ${target.name}] ${RUNS} runs, ${RESTARTS} restarts, ${fleet.putsAcknowledged()} steps acknowledged, ` +
            `${recoveries} recoveries, task fn ${tasks.calls} calls, ${seconds.toFixed(1)} s`,
        );
        const topic = `server restarts: ${target.name}`;
        count(topic, 'runs finished', RUNS);
        count(topic, 'restarts survived', RESTARTS);
        count(topic, 'recoveries', recoveries);
        count(topic, 'seconds', Math.round(seconds));
        count(topic, 'data lost', lost);
      },
      LIMIT_MS + 120_000,
    );
  });
}
