import { afterAll, describe, expect, it } from 'vitest';
import { COUNTING_INPUT, countingGraph } from '../fixtures/graphs.mjs';
import { startChild } from './children.js';
import {
  acknowledged,
  fileStoreEntries,
  killAtRandom,
  lostAcknowledged,
  plantTemps,
  sqliteIntegrity,
  verifyWrites,
} from './crash.js';
import { count } from './figures.js';
import { freshStore, type Store } from './stores.js';

/** Kills per backend of the checkpoint-writing child, and of the graph-running child. */
export const WRITE_KILLS = 50;
export const GRAPH_KILLS = 25;
/** Dozens of child processes each: at a load of 20 on two cores a loop outlasted the default 60 s. */
const KILL_LOOP_TIMEOUT = 240_000;

/** Thread ids of the writers: plain, and ones a naive file layout would mangle. */
const THREADS = ['plain', 'a/b', 'with space ✓'];

/**
 * SIGKILL tests for a backend that stores to local files (file, sqlite). A child process imports the built
 * packages and writes; the test kills it at random moments, checks after every kill that nothing it had
 * acknowledged is lost, and checks the whole store at the end.
 */
export function describeCrashes(backend: 'file' | 'sqlite'): void {
  describe(`${backend}: SIGKILL at random moments`, () => {
    const stores: Store[] = [];
    afterAll(async () => {
      for (const store of stores) await store.remove();
    });

    it(
      `a child writing checkpoints in a loop, killed ${WRITE_KILLS} times: every checkpoint parses, steps are contiguous, none acknowledged is lost`,
      async () => {
        const store = freshStore(backend);
        stores.push(store);
        const acked = new Map<string, number>();
        let lost = 0;
        for (let kills = 0; kills < WRITE_KILLS; ) {
          const child = startChild('crash-writer.mjs', [backend, store.location, ...THREADS]);
          const killed = await killAtRandom(child, /^ok /);
          expect(killed, 'the writer never stops by itself').toBe(true);
          kills++;
          acknowledged(child.lines, acked);
          const cp = store.open();
          lost += await lostAcknowledged(cp, acked);
          await cp.close();
          expect(lost, `acknowledged steps missing after kill ${kills}`).toBe(0);
        }
        const cp = store.open();
        let planted = 0;
        if (backend === 'file') planted = plantTemps(store.location);
        const total = await verifyWrites(cp, THREADS);
        expect(total).toBeGreaterThan(0);
        if (backend === 'file') {
          const { steps, temps } = fileStoreEntries(store.location);
          expect(steps, 'step files on disk = checkpoints listed').toBe(total);
          expect(temps).toBeGreaterThanOrEqual(planted);
        } else {
          expect(sqliteIntegrity(store.location)).toBe('ok');
        }
        await cp.close();
        count(`crash: ${backend} writes`, 'kills survived', WRITE_KILLS);
        count(`crash: ${backend} writes`, 'data lost', lost);
      },
      KILL_LOOP_TIMEOUT,
    );

    it(
      `a child running a graph, killed ${GRAPH_KILLS} times: resume finishes every run with the uninterrupted result, each step written once`,
      async () => {
        const store = freshStore(backend);
        stores.push(store);
        const expected = (await countingGraph().invoke(COUNTING_INPUT)).state;
        const threads: string[] = [];
        const acked = new Map<string, number>();
        let finished = 0;
        let thread = 'run-0';
        threads.push(thread);
        for (let kills = 0; kills < GRAPH_KILLS; ) {
          const child = startChild('crash-graph.mjs', [backend, store.location, thread]);
          const killed = await killAtRandom(child, /^step /);
          for (const line of child.lines) {
            const m = /^step (\d+)$/.exec(line);
            if (m) acked.set(thread, Math.max(acked.get(thread) ?? -1, Number(m[1])));
          }
          const cp = store.open();
          expect(await lostAcknowledged(cp, acked), `committed steps missing after kill ${kills}`).toBe(0);
          await cp.close();
          if (killed) {
            kills++;
          } else {
            // The run finished before the kill came: go on with a new thread.
            finished++;
            thread = `run-${threads.length}`;
            threads.push(thread);
          }
        }
        const cp = store.open();
        const app = countingGraph(cp);
        for (const t of threads) {
          const latest = await cp.get(t);
          const result =
            latest === undefined ? await app.invoke(COUNTING_INPUT, { thread: t }) : await app.resume(t);
          expect(result.status).toBe('done');
          expect(result.state, `final state of ${t}`).toEqual(expected);
          const history = await app.history(t);
          const steps = history.map((c) => c.step);
          expect(steps, `steps of ${t}`).toEqual(steps.map((_, i) => steps.length - 1 - i));
          expect(
            history.filter((c) => c.revision !== 1).map((c) => c.step),
            `steps of ${t} written twice`,
          ).toEqual([]);
        }
        if (backend === 'sqlite') expect(sqliteIntegrity(store.location)).toBe('ok');
        await cp.close();
        count(`crash: ${backend} graph runs`, 'kills survived', GRAPH_KILLS);
        count(`crash: ${backend} graph runs`, 'data lost', 0);
        expect(threads.length).toBe(finished + 1);
      },
      KILL_LOOP_TIMEOUT,
    );
  });
}
