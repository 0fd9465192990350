import type { Checkpointer, PruneBounds } from '@flow/core';
import { expect, it } from 'vitest';
import { at, checkpoint, observe, putSteps, steps } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

/**
 * Steps 0..5 whose timestamps do not follow the step order, so a backend that prunes by step when asked for
 * time (or the reverse) is caught: step → ts second.
 */
const HISTORY: ReadonlyArray<readonly [step: number, second: number]> = [
  [0, 10],
  [1, 0],
  [2, 30],
  [3, 20],
  [4, 40],
  [5, 50],
];

async function putHistory(cp: Checkpointer, thread = 't'): Promise<void> {
  for (const [step, second] of HISTORY) await cp.put(checkpoint(thread, step, { ts: at(second) }));
}

/** Retention: `prune` by step and by age (never the latest) and `deleteThread`. */
export const retentionSuite: ConformanceSuite = {
  title: 'retention',
  define(kit) {
    it('prune beforeStep removes steps strictly below it and resolves with the count', async () => {
      const cp = await kit.create();
      await putHistory(cp);
      expect(await cp.prune('t', { beforeStep: 3 })).toBe(3);
      expect(steps(await cp.list('t'))).toEqual([5, 4, 3]);
      expect(await cp.prune('t', { beforeStep: 3 })).toBe(0);
    });

    it('prune olderThan (a Date) removes checkpoints whose ts is strictly before it', async () => {
      const cp = await kit.create();
      await putHistory(cp);
      // ts of step 3 is exactly at(20): it is not older than at(20), so it stays.
      expect(await cp.prune('t', { olderThan: new Date(at(20)) })).toBe(2);
      expect(steps(await cp.list('t'))).toEqual([5, 4, 3, 2]);
    });

    it('prune olderThan (an ISO string, any offset) works like the Date', async () => {
      const cp = await kit.create();
      await putHistory(cp);
      expect(await cp.prune('t', { olderThan: at(30) })).toBe(3);
      expect(steps(await cp.list('t'))).toEqual([5, 4, 2]);
      await putHistory(cp, 'u');
      // 2024-01-01T01:00:30+01:00 is at(30).
      expect(await cp.prune('u', { olderThan: '2024-01-01T01:00:30+01:00' })).toBe(3);
      expect(steps(await cp.list('u'))).toEqual([5, 4, 2]);
    });

    it('prune olderThan compares instants, also for years before 0000 and after 9999', async () => {
      const cp = await kit.create();
      // ISO text order is not time order here: '+010000-…' < '2000-…' < '0500-…' as strings.
      const stamps = [
        '-000001-06-01T00:00:00.000Z',
        '0500-01-01T00:00:00.000Z',
        '+010000-01-01T00:00:00.000Z',
      ];
      for (const [step, ts] of stamps.entries()) await cp.put(checkpoint('t', step, { ts }));
      await cp.put(checkpoint('t', 3, { ts: '1999-01-01T00:00:00.000Z' }));
      expect((await cp.get('t', 0))?.ts).toBe(stamps[0]);
      expect((await cp.get('t', 2))?.ts).toBe(stamps[2]);
      // Before 2000: years -1 and 500; step 3 (1999) is the latest and stays; year 10000 is not older.
      expect(await cp.prune('t', { olderThan: '2000-01-01T00:00:00.000Z' })).toBe(2);
      expect(steps(await cp.list('t'))).toEqual([3, 2]);
    });

    it('prune with both bounds removes only checkpoints that meet both', async () => {
      const cp = await kit.create();
      await putHistory(cp);
      // beforeStep 3 alone: 0, 1, 2. olderThan at(25) alone: 0, 1, 3. Both: 0, 1.
      expect(await cp.prune('t', { beforeStep: 3, olderThan: at(25) })).toBe(2);
      expect(steps(await cp.list('t'))).toEqual([5, 4, 3, 2]);
    });

    it('prune never removes the latest checkpoint, even when it matches every bound', async () => {
      const cp = await kit.create();
      await putHistory(cp);
      const latest = await cp.get('t');
      expect(await cp.prune('t', { beforeStep: 1000, olderThan: at(10_000) })).toBe(5);
      expect(await cp.list('t')).toEqual([latest]);
      await cp.put(checkpoint('single', 0, { ts: at(0) }));
      expect(await cp.prune('single', { olderThan: at(10_000) })).toBe(0);
      expect(await cp.prune('single', { beforeStep: 1000 })).toBe(0);
      expect(steps(await cp.list('single'))).toEqual([0]);
    });

    it('the latest is the highest step, even when it is the oldest by ts', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 9, { ts: at(0) }));
      await cp.put(checkpoint('t', 1, { ts: at(100) }));
      expect(await cp.prune('t', { olderThan: at(1000) })).toBe(1);
      expect(steps(await cp.list('t'))).toEqual([9]);
    });

    it('prune touches only the given thread and resolves 0 for an unknown one', async () => {
      const cp = await kit.create();
      await putHistory(cp, 't');
      await putHistory(cp, 'other');
      expect(await cp.prune('t', { beforeStep: 5 })).toBe(5);
      expect(await cp.list('other')).toHaveLength(HISTORY.length);
      expect(await cp.prune('nobody', { beforeStep: 5 })).toBe(0);
      expect(await cp.listThreads()).toHaveLength(2);
    });

    it('prune with no bound or an invalid bound rejects with InvalidArgumentError and removes nothing', async () => {
      const cp = await kit.create();
      await putHistory(cp);
      const before = await observe(cp, 't');
      const bad: Array<[string, unknown]> = [
        ['{}', {}],
        ['undefined', undefined],
        ['null', null],
        ['{ beforeStep: undefined, olderThan: undefined }', { beforeStep: undefined, olderThan: undefined }],
        ['{ beforeStep: -1 }', { beforeStep: -1 }],
        ['{ beforeStep: 1.5 }', { beforeStep: 1.5 }],
        ['{ beforeStep: "3" }', { beforeStep: '3' }],
        ['{ beforeStep: NaN }', { beforeStep: Number.NaN }],
        ['{ olderThan: "not a date" }', { olderThan: 'not a date' }],
        // Not ISO-8601, though Date reads each as some instant (2024-01-01, 2001-01-01).
        ['{ olderThan: "garbage 2024" }', { olderThan: 'garbage 2024' }],
        ['{ olderThan: "1" }', { olderThan: '1' }],
        ['{ olderThan: Invalid Date }', { olderThan: new Date(Number.NaN) }],
        ['{ olderThan: 12345 }', { olderThan: 12345 }],
        ['{ beforeStep: 3, olderThan: "soon" }', { beforeStep: 3, olderThan: 'soon' }],
      ];
      for (const [label, bounds] of bad) {
        await expectFlowError(
          () => cp.prune('t', bounds as PruneBounds),
          'INVALID_ARGUMENT',
          `prune('t', ${label})`,
        );
      }
      expect(await observe(cp, 't')).toEqual(before);
    });

    it('deleteThread removes the whole history and resolves with the count', async () => {
      const cp = await kit.create();
      await putHistory(cp, 't');
      await putSteps(cp, 'keep', [0, 1]);
      expect(await cp.deleteThread('t')).toBe(HISTORY.length);
      expect(await cp.get('t')).toBeUndefined();
      expect(await cp.get('t', 0)).toBeUndefined();
      expect(await cp.list('t')).toEqual([]);
      expect(steps(await cp.list('keep'))).toEqual([1, 0]);
      expect((await cp.listThreads()).map((i) => i.thread)).toEqual(['keep']);
      expect(await cp.deleteThread('t')).toBe(0);
    });

    it('deleteThread of an unknown thread resolves 0', async () => {
      const cp = await kit.create();
      expect(await cp.deleteThread('nobody')).toBe(0);
      await putSteps(cp, 'somebody', [0]);
      expect(await cp.deleteThread('nobody')).toBe(0);
      expect(await cp.list('somebody')).toHaveLength(1);
    });

    it('a deleted thread starts afresh: revision 1 and ifRevision: 0 succeed', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      await cp.put(checkpoint('t', 0));
      await cp.deleteThread('t');
      const again = await cp.put(checkpoint('t', 0, { state: 'new' }), { ifRevision: 0 });
      expect(again.revision).toBe(1);
      expect((await cp.listThreads()).map((i) => i.latestStep)).toEqual([0]);
    });
  },
};

/** Runs only the retention checks: `describeRetention('mine', harness)`. */
export const describeRetention = describerFor(retentionSuite);
