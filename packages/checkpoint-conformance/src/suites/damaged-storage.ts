import type { Checkpointer } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint, steps } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

const THREAD = 'order-9';
const OTHER = 'order-10';
/** The damaged entry: neither the first step nor the latest, so the summary and the latest stay whole. */
const DAMAGED = { thread: THREAD, step: 12 } as const;
/** Stored in the damaged step's state: no error message may quote it (stored text can hold secrets). */
const SECRET = 'sesame-4711';

/** Steps 11, 12 (to be damaged) and 13 of one thread, interrupted and not, and a second thread. */
async function storeThreads(cp: Checkpointer): Promise<void> {
  await cp.put(checkpoint(THREAD, 11, { next: ['plan'] }));
  await cp.put(
    checkpoint(THREAD, 12, {
      state: { secret: SECRET, items: ['a', 'b'] },
      next: ['review', 'ship'],
      interrupted: true,
      interruptNode: 'review',
      interruptPayload: { question: 'ship it?' },
    }),
  );
  await cp.put(checkpoint(THREAD, 13, { next: ['ship'] }));
  await cp.put(checkpoint(OTHER, 0, { next: ['plan'] }));
}

/**
 * Damaged storage: an entry that cannot be read is a `CorruptCheckpointError` naming the backend and where
 * the entry lives (never a crash, a wrong value or a missing checkpoint), and it hides nothing else. Runs once
 * per damage the harness declares (`harness.damage`): only the backend can reach its storage.
 */
export const damagedStorageSuite: ConformanceSuite = {
  title: 'damaged storage',
  define(kit) {
    const damages = Object.entries(kit.damage);
    if (damages.length === 0) {
      // Said in the test name on purpose: a run without damage must show that this went unchecked.
      it('damaged storage: not declared by harness (no damage), so reading a damaged entry is not checked', () => {
        expect(kit.damage).toEqual({});
      });
      return;
    }

    for (const [name, damage] of damages) {
      it(`${name}: get and list of it reject with CorruptCheckpointError naming the backend, thread and step, quoting no stored text`, async () => {
        const cp = await kit.create();
        await storeThreads(cp);
        await damage(cp, DAMAGED);
        const reads: Array<[string, () => Promise<unknown>]> = [
          [`get(${THREAD}, 12)`, () => cp.get(THREAD, 12)],
          [`list(${THREAD})`, () => cp.list(THREAD)],
          [
            `list(${THREAD}, { beforeStep: 13, limit: 1 })`,
            () => cp.list(THREAD, { beforeStep: 13, limit: 1 }),
          ],
        ];
        for (const [call, read] of reads) {
          const error = await expectFlowError(read, 'CORRUPT_CHECKPOINT', `${call} after "${name}"`);
          // `[flow:<backend>] `: the one prefix that says which backend spoke (docs/protocol.md, "Errors").
          expect(error.message, call).toMatch(/^\[flow:[^\]\s]+\] /);
          expect(error.location, `${call}: location names the thread`).toEqual(
            expect.stringContaining(THREAD),
          );
          expect(error.location, `${call}: location names the step`).toEqual(expect.stringContaining('12'));
          expect(error.message, `${call}: message holds the location`).toContain(error.location);
          expect(error.detail, `${call}: detail says what is wrong`).toEqual(expect.stringMatching(/\S/));
          const cause = error.cause instanceof Error ? error.cause.message : String(error.cause ?? '');
          for (const text of [error.message, String(error.detail), cause]) {
            expect(text, `${call}: no stored text quoted`).not.toContain(SECRET);
          }
        }
      });

      it(`${name}: the other steps and threads stay readable, and prune and deleteThread remove it`, async () => {
        const cp = await kit.create();
        await storeThreads(cp);
        const before = {
          11: await cp.get(THREAD, 11),
          13: await cp.get(THREAD, 13),
          other: await cp.list(OTHER),
          threads: await cp.listThreads(),
        };
        await damage(cp, DAMAGED);
        expect(await cp.get(THREAD, 11)).toEqual(before[11]);
        expect(await cp.get(THREAD, 13)).toEqual(before[13]);
        expect(await cp.get(THREAD)).toEqual(before[13]);
        expect(await cp.list(THREAD, { limit: 1 })).toEqual([before[13]]);
        expect(await cp.list(THREAD, { beforeStep: 12 })).toEqual([before[11]]);
        expect(await cp.list(OTHER)).toEqual(before.other);
        expect(await cp.listThreads()).toEqual(before.threads);
        expect(await cp.prune(THREAD, { beforeStep: 13 }), 'prune over the damaged step').toBe(2);
        expect(steps(await cp.list(THREAD))).toEqual([13]);
        await cp.put(checkpoint(THREAD, 12, { state: 'again' }));
        expect((await cp.get(THREAD, 12))?.state).toBe('again');
        await damage(cp, DAMAGED);
        expect(await cp.deleteThread(THREAD), 'deleteThread of a thread with a damaged step').toBe(2);
        expect(await cp.get(THREAD)).toBeUndefined();
        expect((await cp.listThreads()).map((info) => info.thread)).toEqual([OTHER]);
      });
    }
  },
};

/** Runs only the damaged-storage checks: `describeDamagedStorage('mine', harness)`. */
export const describeDamagedStorage = describerFor(damagedStorageSuite);
