import type { Checkpointer } from '@flow/core';
import { afterAll, expect, it } from 'vitest';
import { checkpoint, range, steps } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { ChildPool } from '../process/child-pool.js';
import { type KitTaskName, kitTask } from '../process/kit-tasks.js';

/** Steps fought over per kind of conditional put (ifRevision 0 and 1) in one race. */
const ROUNDS = 4;
/** Unconditional puts each process makes in the counting race. */
const PUTS_PER_PROCESS = 10;
/** How far the recovery race takes one thread. */
const CLAIMED_STEPS = 24;
/** Starting node processes on a busy machine takes a while; these tests get at least this long. */
const MIN_TIMEOUT = 60_000;

/** How one put in a child ended (child/tasks.mjs). */
interface PutOutcome {
  won: boolean;
  revision?: number;
  expected?: number;
  actual?: number;
  notInterrupted?: boolean;
  error?: { code?: string; name?: string; message?: string };
}

/**
 * Races between processes: the harness's `openInChild` lets the kit start several node processes on one
 * storage and release them at once. Exactly-once must hold across processes, not only across promises.
 */
export const processRacesSuite: ConformanceSuite = {
  title: 'process races',
  define(kit, harness) {
    if (!kit.openInChild) {
      // Said in the test name on purpose: a run without openInChild must show that these went unchecked.
      it('process races: not declared by harness (no openInChild), so races between processes are not checked', () => {
        expect(kit.openInChild).toBeUndefined();
      });
      return;
    }
    const n = kit.processes;
    const timeout = Math.max(MIN_TIMEOUT, harness.timeout ?? 0);
    // One pool of processes for the suite: starting node is the slow part, opening the storage is not.
    const pool = new ChildPool(n);
    afterAll(() => pool.close());
    const openInChild = kit.openInChild;
    const run = async <R>(cp: Checkpointer, task: KitTaskName, params: unknown) =>
      pool.run<R>(await openInChild(cp), kitTask(task), params, timeout - 5_000);

    it(
      `${n} processes race conditional puts on the same steps: one winner per step, every other a CheckpointConflict`,
      async () => {
        const cp = await kit.create();
        // Steps 0..ROUNDS-1 hold revision 1 (raced with ifRevision: 1); the next ROUNDS are empty (ifRevision: 0).
        for (const step of range(ROUNDS)) await cp.put(checkpoint('raced', step, { state: 'seed' }));
        const puts = [
          ...range(ROUNDS).map((step) => ({ step, ifRevision: 1 })),
          ...range(ROUNDS).map((i) => ({ step: ROUNDS + i, ifRevision: 0 })),
        ];
        const reports = await run<PutOutcome[]>(cp, 'conditionalPuts', { thread: 'raced', puts });
        for (const [i, { step, ifRevision }] of puts.entries()) {
          const outcomes = reports.map((r) => r[i]!);
          expect(
            outcomes.filter((o) => o.error !== undefined),
            `step ${step}: failures other than conflicts`,
          ).toEqual([]);
          const winners = outcomes.flatMap((o, writer) => (o.won ? [writer] : []));
          expect(winners, `processes that won step ${step} (ifRevision ${ifRevision})`).toHaveLength(1);
          for (const o of outcomes.filter((x) => !x.won)) {
            expect({ expected: o.expected, actual: o.actual }, `a loser of step ${step}`).toEqual({
              expected: ifRevision,
              actual: ifRevision + 1,
            });
          }
          const stored = await cp.get('raced', step);
          expect(stored?.revision).toBe(ifRevision + 1);
          expect(stored?.state).toEqual({ writer: winners[0], step });
        }
        expect((await cp.listThreads()).map((i) => i.latestStep)).toEqual([2 * ROUNDS - 1]);
      },
      timeout,
    );

    it(
      `${n} processes race ifRevision: 0 on fresh storage they all set up at that moment, on a hostile thread id: one winner per step`,
      async () => {
        // No setup() and no seed: the first put of every child also races to create the storage.
        const cp = await kit.create();
        const thread = 'race/🏁 "x"';
        const puts = range(ROUNDS).map((step) => ({ step, ifRevision: 0 }));
        const reports = await run<PutOutcome[]>(cp, 'conditionalPuts', { thread, puts });
        for (const { step } of puts) {
          const outcomes = reports.map((r) => r[step]!);
          expect(
            outcomes.filter((o) => o.error !== undefined),
            `step ${step}: failures other than conflicts`,
          ).toEqual([]);
          const winners = outcomes.flatMap((o, writer) => (o.won ? [writer] : []));
          expect(winners, `processes that won step ${step}`).toHaveLength(1);
          for (const o of outcomes.filter((x) => !x.won)) {
            expect({ expected: o.expected, actual: o.actual }, `a loser of step ${step}`).toEqual({
              expected: 0,
              actual: 1,
            });
          }
          expect(await cp.get(thread, step)).toMatchObject({
            revision: 1,
            state: { writer: winners[0], step },
          });
        }
        expect(await cp.listThreads()).toMatchObject([{ thread, latestStep: ROUNDS - 1 }]);
      },
      timeout,
    );

    it(
      `${n} processes each put ${PUTS_PER_PROCESS} times, unconditionally, to one step: every revision from 1 to ${n * PUTS_PER_PROCESS} is handed out once`,
      async () => {
        // No setup() here first: the children also race to set the storage up.
        const cp = await kit.create();
        const reports = await run<number[]>(cp, 'unconditionalPuts', {
          thread: 'counted',
          step: 0,
          count: PUTS_PER_PROCESS,
        });
        for (const revisions of reports) {
          expect(revisions, "one process's own revisions only rise").toEqual(
            [...new Set(revisions)].sort((a, b) => a - b),
          );
        }
        expect(reports.flat().sort((a, b) => a - b)).toEqual(range(n * PUTS_PER_PROCESS).map((i) => i + 1));
        expect((await cp.get('counted', 0))?.revision).toBe(n * PUTS_PER_PROCESS);
      },
      timeout,
    );

    it(
      `${n} processes answer one interrupted checkpoint at once: exactly one claim of the next step wins`,
      async () => {
        const cp = await kit.create();
        await cp.put(checkpoint('asked', 0));
        await cp.put(
          checkpoint('asked', 1, {
            state: { question: 'ok?' },
            next: ['review'],
            interrupted: true,
            interruptNode: 'review',
            interruptPayload: 'ok?',
          }),
        );
        const outcomes = await run<PutOutcome>(cp, 'answerInterrupt', { thread: 'asked' });
        expect(outcomes.filter((o) => o.error !== undefined)).toEqual([]);
        const winners = outcomes.flatMap((o, writer) => (o.won ? [writer] : []));
        expect(winners, 'processes whose answer was taken').toHaveLength(1);
        // A loser either lost the claim, or read the thread after the winner's claim had landed.
        for (const o of outcomes.filter((x) => !x.won)) {
          expect(o.notInterrupted === true || (o.expected === 0 && o.actual === 1), JSON.stringify(o)).toBe(
            true,
          );
        }
        const latest = await cp.get('asked');
        expect(latest).toMatchObject({ step: 2, interrupted: false, revision: 1 });
        expect(latest?.state).toEqual({ question: 'ok?', answer: winners[0] });
        expect(steps(await cp.list('asked'))).toEqual([2, 1, 0]);
      },
      timeout,
    );

    it(
      `${n} processes recover one thread together, claiming step after step up to ${CLAIMED_STEPS}: every step written once, none missing`,
      async () => {
        const cp = await kit.create();
        await cp.put(checkpoint('recovered', 0, { state: { writer: -1, step: 0 } }));
        const reports = await run<{ won: number[]; lost: number }>(cp, 'claimSteps', {
          thread: 'recovered',
          until: CLAIMED_STEPS,
        });
        const claimed = reports.flatMap((r) => r.won).sort((a, b) => a - b);
        expect(claimed, 'the steps the processes say they won').toEqual(
          range(CLAIMED_STEPS).map((i) => i + 1),
        );
        const history = await cp.list('recovered');
        expect(steps(history)).toEqual(range(CLAIMED_STEPS + 1).reverse());
        expect(history.map((c) => c.revision)).toEqual(history.map(() => 1));
        for (const [writer, report] of reports.entries()) {
          for (const step of report.won) {
            expect(history.find((c) => c.step === step)?.state, `step ${step}`).toEqual({ writer, step });
          }
        }
        expect(await cp.listThreads()).toMatchObject([{ latestStep: CLAIMED_STEPS, done: true }]);
      },
      timeout,
    );
  },
};

/** Runs only the process races: `describeProcessRaces('mine', harness)` (needs `openInChild`). */
export const describeProcessRaces = describerFor(processRacesSuite);
