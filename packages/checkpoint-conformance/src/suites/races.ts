import { type Checkpoint, type Checkpointer, isFlowError } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint, range } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';

/**
 * Fires one conditional put per writer at the same (thread, step), all at once, and checks the outcome:
 * exactly one winner, every loser a CheckpointConflict with the expected and actual revisions, and the
 * winner's write the one stored.
 */
async function race(writers: readonly Checkpointer[], thread: string, step: number, expected: number) {
  const settled = await Promise.allSettled(
    writers.map((cp, i) =>
      cp.put(checkpoint(thread, step, { state: { writer: i } }), { ifRevision: expected }),
    ),
  );
  const winners = settled.filter((s): s is PromiseFulfilledResult<Checkpoint> => s.status === 'fulfilled');
  const losers = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  expect(winners.length, `${writers.length} racers with ifRevision ${expected}: winners`).toBe(1);
  for (const { reason } of losers) {
    expect(isFlowError(reason, 'CHECKPOINT_CONFLICT'), `loser rejected with: ${String(reason)}`).toBe(true);
    expect({ expected: reason.expected, actual: reason.actual }).toEqual({ expected, actual: expected + 1 });
  }
  const winner = winners[0]!.value;
  expect(winner.revision).toBe(expected + 1);
  const stored = await writers[0]!.get(thread, step);
  expect(stored?.revision).toBe(expected + 1);
  expect(stored?.state).toEqual(winner.state);
}

/** Racing writers: exactly one of any number of concurrent conditional puts wins. */
export const racesSuite: ConformanceSuite = {
  title: 'races',
  define(kit) {
    it(`concurrent puts with ifRevision: 0 on an empty step: exactly one wins, the rest conflict`, async () => {
      const cp = await kit.create();
      await race(
        range(kit.raceWidth).map(() => cp),
        't',
        0,
        0,
      );
    });

    it('concurrent puts with the same ifRevision: n > 0: exactly one wins, the rest conflict', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 2));
      await cp.put(checkpoint('t', 2));
      await race(
        range(kit.raceWidth).map(() => cp),
        't',
        2,
        2,
      );
    });

    it('concurrent unconditional puts to one step each bump the revision once', async () => {
      const cp = await kit.create();
      const width = kit.raceWidth;
      const results = await Promise.all(range(width).map((i) => cp.put(checkpoint('t', 0, { state: i }))));
      expect(results.map((r) => r.revision).sort((a, b) => a - b)).toEqual(range(width).map((i) => i + 1));
      expect((await cp.get('t', 0))?.revision).toBe(width);
    });

    it('concurrent puts to different steps of one thread all land; the summary names the highest step', async () => {
      const cp = await kit.create();
      const all = range(kit.raceWidth);
      // Interleave high and low steps so a summary updated by "last write wins" would be caught.
      const order = [...all.filter((s) => s % 2 === 1).reverse(), ...all.filter((s) => s % 2 === 0)];
      await Promise.all(
        order.map((step) => cp.put(checkpoint('t', step, { next: step === 0 ? [] : ['n'] }))),
      );
      expect(await cp.list('t')).toHaveLength(all.length);
      const highest = all.length - 1;
      expect((await cp.get('t'))?.step).toBe(highest);
      const [info] = await cp.listThreads();
      expect(info?.latestStep).toBe(highest);
    });

    if (kit.reopen) {
      const reopen = kit.reopen;
      it('concurrent conditional puts from two instances on the same storage: exactly one wins', async () => {
        const a = await kit.create();
        const b = await reopen(a);
        await a.setup();
        await b.setup();
        const writers = range(kit.raceWidth).map((i) => (i % 2 === 0 ? a : b));
        await race(writers, 'shared', 0, 0);
        await race(writers, 'shared', 0, 1);
      });
    } else {
      it('races across instances: not declared by harness (no reopen)', () => {
        expect(kit.reopen).toBeUndefined();
      });
    }
  },
};

/** Runs only the race checks: `describeRaces('mine', harness)`. */
export const describeRaces = describerFor(racesSuite);
