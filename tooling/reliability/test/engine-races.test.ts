import { join } from 'node:path';
import { ChildPool } from '@flow/checkpoint-conformance';
import type { Checkpoint } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { COUNTING_INPUT, countingGraph, reviewGraph } from './fixtures/graphs.mjs';
import { FIXTURES } from './support/children.js';
import { count } from './support/figures.js';
import { freshStore, SHARED_BACKENDS, type Store } from './support/stores.js';

/** Processes per race, and races of each kind per backend. */
const PROCESSES = 8;
const ROUNDS = 3;
const TASKS = join(FIXTURES, 'engine-tasks.mjs');

interface Outcome {
  status?: 'done' | 'interrupted';
  step?: number;
  state?: unknown;
  error?: { code?: string; message?: string };
}

function expectContiguousOnce(history: readonly Checkpoint[], what: string): void {
  const steps = history.map((c) => c.step);
  expect(steps, `steps of ${what}`).toEqual(steps.map((_, i) => steps.length - 1 - i));
  expect(
    history.filter((c) => c.revision !== 1).map((c) => c.step),
    `steps of ${what} written twice`,
  ).toEqual([]);
}

// Engine-level races (docs/engine.md) between processes, each with its own checkpointer on one storage.
// The kit's process races check the same rules at the protocol level; these run @flow/graph itself.
// One pool of processes for the file: each race opens the backend's storage in every child.
const pool = new ChildPool(PROCESSES);
afterAll(() => pool.close());

for (const backend of SHARED_BACKENDS) {
  describe(`${backend}: ${PROCESSES} processes resuming one thread with @flow/graph`, () => {
    let store: Store;
    afterAll(async () => {
      await store?.remove();
    });

    it(`answering one interrupt (${ROUNDS} races): exactly one process runs, every other rejects with AlreadyResumed`, async () => {
      store = freshStore(backend);
      const cp = store.open();
      const app = reviewGraph(cp);
      for (let round = 0; round < ROUNDS; round++) {
        const thread = `review-${round}`;
        expect((await app.invoke({ log: [] }, { thread })).status).toBe('interrupted');
        const outcomes = await pool.run<Outcome>(
          store.opener!,
          { module: TASKS, export: 'answerReview' },
          { thread },
        );
        const winners = outcomes.flatMap((o, i) => (o.status === 'done' ? [i] : []));
        expect(winners, 'processes whose answer ran').toHaveLength(1);
        expect(
          outcomes.filter((o) => o.status !== 'done').map((o) => o.error?.code),
          JSON.stringify(outcomes),
        ).toEqual(Array(PROCESSES - 1).fill('ALREADY_RESUMED'));
        const final = await app.getState(thread);
        expect(final?.done).toBe(true);
        expect(final?.state).toEqual({
          log: ['draft', 'review', `ship answer ${winners[0]}`],
          answer: `answer ${winners[0]}`,
        });
        expectContiguousOnce(await app.history(thread), thread);
        // Later answers are refused too.
        await expect(app.resume(thread, { answer: 'late' })).rejects.toMatchObject({
          code: 'ALREADY_RESUMED',
        });
        count(`engine races: ${backend}`, 'races run');
      }
    });

    it(`recovering one failed run (${ROUNDS} races): one claim per step, no step written twice or missing, the uninterrupted result`, async () => {
      store ??= freshStore(backend);
      const cp = store.open();
      const expected = (await countingGraph().invoke(COUNTING_INPUT)).state;
      for (let round = 0; round < ROUNDS; round++) {
        const thread = `recover-${round}`;
        // The run fails part-way: the last committed checkpoint stays, as after a crash.
        await expect(
          countingGraph(cp, { failAt: 7 + round }).invoke(COUNTING_INPUT, { thread }),
        ).rejects.toMatchObject({
          code: 'NODE_FAILED',
        });
        const stuck = (await cp.get(thread))!;
        const outcomes = await pool.run<Outcome>(
          store.opener!,
          { module: TASKS, export: 'recoverCounting' },
          { thread },
        );
        const done = outcomes.filter((o) => o.status === 'done');
        expect(done.length, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(1);
        for (const o of done) expect(o.state).toEqual(expected);
        // A loser either found the winner's lease live (ThreadBusy) or lost the claim (AlreadyResumed); both
        // wrote nothing, which the history checks below prove.
        for (const o of outcomes.filter((o) => o.status !== 'done'))
          expect(['ALREADY_RESUMED', 'THREAD_BUSY'], JSON.stringify(o)).toContain(o.error?.code);
        const history = await cp.list(thread);
        expectContiguousOnce(history, thread);
        expect(history[0]?.state).toEqual(expected);
        // The claim right after the failure carries the stuck state and frontier, written once.
        expect(history.find((c) => c.step === stuck.step + 1)).toMatchObject({
          state: stuck.state,
          next: stuck.next,
        });
        count(`engine races: ${backend}`, 'races run');
      }
    });
  });
}
