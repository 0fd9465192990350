import {
  Checkpoint,
  type CheckpointInit,
  compareThreadIds,
  type RunError,
  statusOf,
  THREAD_STATUSES,
  type ThreadInfo,
  threadInfoOf,
  threadStatusOf,
} from '@flow/core';
import { expect, it } from 'vitest';
import { at, checkpoint } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';

const BOOM: RunError = { node: 'work', message: 'boom: "quoted", a\nnewline, a \u0000 and ünïcödé 😀' };
const META = { stateVersion: 3, labels: ['a', 'b'], nested: { ok: true, n: null }, text: 'é "x" \u0000' };

/** One thread per combination of the fields the status depends on. */
const COMBINATIONS: ReadonlyArray<[thread: string, fields: Partial<CheckpointInit>]> = [
  ['running', { next: ['work'] }],
  ['failed', { next: ['work'], error: BOOM }],
  ['failed-step-limit', { next: ['work'], error: { node: null, message: 'step limit 25 reached' } }],
  ['done', { next: [] }],
  ['done-with-error', { next: [], error: BOOM }],
  ['interrupted', { next: ['review'], interrupted: true, interruptNode: 'review' }],
  ['interrupted-with-error', { next: ['review'], interrupted: true, interruptNode: 'review', error: BOOM }],
  ['interrupted-empty-next', { next: [], interrupted: true, interruptNode: 'review' }],
];

/**
 * Failed runs and meta: a checkpoint's `error` and `meta` are stored and read back everywhere, and a
 * thread's status follows core's `statusOf` of its latest checkpoint in `listThreads`, filters included.
 */
export const failedRunsSuite: ConformanceSuite = {
  title: 'failed runs',
  define(kit) {
    if (!kit.declares.failedRuns) {
      // Said in the test name on purpose: a run without the capability must show that this went unchecked.
      it('failed runs: not declared by harness (capabilities.failedRuns), so error, meta and status failed are not checked', () => {
        expect(kit.declares.failedRuns).toBe(false);
      });
      return;
    }

    it('error and meta round-trip through put, get and list', async () => {
      const cp = await kit.create();
      const stored = await cp.put(checkpoint('t', 0, { next: ['work'], error: BOOM, meta: META }));
      expect(stored.error).toEqual(BOOM);
      expect(stored.meta).toEqual(META);
      const read = await cp.get('t', 0);
      expect(read?.error).toEqual(BOOM);
      expect(read?.meta).toEqual(META);
      expect(await cp.get('t')).toEqual(read);
      expect(await cp.list('t')).toEqual([read]);
    });

    it('a checkpoint without error or meta reads back as error null and meta {}', async () => {
      const cp = await kit.create();
      await cp.put(new Checkpoint({ thread: 't', step: 0, state: 1 }));
      const read = await cp.get('t');
      expect(read?.error).toBeNull();
      expect(read?.meta).toEqual({});
    });

    it('an overwrite replaces error and meta (a later put of the step without them clears them)', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { next: ['work'], error: BOOM, meta: META }));
      await cp.put(checkpoint('t', 0, { next: ['work'] }));
      const read = await cp.get('t');
      expect(read?.error).toBeNull();
      expect(read?.meta).toEqual({});
    });

    it('the summary follows every change of status: from each combination to each other, listThreads agrees with threadInfoOf', async () => {
      const cp = await kit.create();
      const expected = new Map<string, ThreadInfo>();
      for (const [from, before] of COMBINATIONS) {
        for (const [to, after] of COMBINATIONS) {
          const thread = `${from}>${to}`;
          await cp.put(checkpoint(thread, 0, { ts: at(0), ...before }));
          await cp.put(checkpoint(thread, 1, { ts: at(1), ...after }));
          expected.set(
            thread,
            threadInfoOf({ thread, step: 1, next: [], interrupted: false, ...after, ts: at(1) }),
          );
        }
      }
      const sorted = [...expected.keys()].sort(compareThreadIds);
      expect(await cp.listThreads()).toEqual(sorted.map((t) => expected.get(t)));
      for (const status of THREAD_STATUSES) {
        const wanted = sorted.filter((t) => threadStatusOf(expected.get(t)!) === status);
        const listed = (await cp.listThreads({ status })).map((i) => i.thread);
        expect(listed, `listThreads({ status: '${status}' })`).toEqual(wanted);
      }
    });

    it('listThreads agrees with statusOf for every combination of next, interrupted and error', async () => {
      const cp = await kit.create();
      for (const [thread, fields] of COMBINATIONS) {
        await cp.put(checkpoint(thread, 0, { ts: at(0), next: ['work'] }));
        await cp.put(checkpoint(thread, 1, { ts: at(1), ...fields }));
      }
      const expectedStatus = new Map(
        COMBINATIONS.map(([thread, f]) => [
          thread,
          statusOf({ next: f.next ?? [], interrupted: f.interrupted ?? false, error: f.error ?? null }),
        ]),
      );
      for (const info of await cp.listThreads()) {
        const status = expectedStatus.get(info.thread)!;
        const error = COMBINATIONS.find(([t]) => t === info.thread)![1].error ?? null;
        expect(info, info.thread).toEqual({
          thread: info.thread,
          latestStep: 1,
          interrupted: status === 'interrupted',
          done: status === 'done',
          failed: status === 'failed',
          error: status === 'failed' ? error : null,
          ts: at(1),
        });
      }
      for (const status of THREAD_STATUSES) {
        const wanted = [...expectedStatus]
          .filter(([, s]) => s === status)
          .map(([t]) => t)
          .sort();
        const listed = (await cp.listThreads({ status })).map((i) => i.thread);
        expect(listed, `listThreads({ status: '${status}' })`).toEqual(wanted);
      }
      expect((await cp.listThreads({ status: 'failed' })).map((i) => i.thread)).toEqual([
        'failed',
        'failed-step-limit',
      ]);
    });

    it('ThreadInfo carries the error of a failed run, with a large state stored beside it', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 4, { next: ['work'], error: BOOM, state: { big: 'x'.repeat(100_000) } }));
      expect(await cp.listThreads({ status: 'failed' })).toEqual([
        expect.objectContaining({ thread: 't', latestStep: 4, failed: true, done: false, error: BOOM }),
      ]);
    });

    it('a later successful checkpoint clears failed; a failed older step does not fail the thread', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 1, { next: ['work'], error: BOOM }));
      expect((await cp.listThreads({ status: 'failed' })).map((i) => i.thread)).toEqual(['t']);
      await cp.put(checkpoint('t', 2, { next: ['work'] }));
      expect(await cp.listThreads({ status: 'failed' })).toEqual([]);
      expect(await cp.listThreads({ status: 'running' })).toMatchObject([
        { thread: 't', failed: false, error: null },
      ]);
      await cp.put(checkpoint('t', 0, { next: ['work'], error: BOOM })); // an older step
      expect(await cp.listThreads({ status: 'failed' })).toEqual([]);
      await cp.put(checkpoint('t', 2, { next: ['work'], error: BOOM })); // the latest, overwritten
      expect(await cp.listThreads({ status: 'failed' })).toMatchObject([
        { thread: 't', latestStep: 2, error: BOOM },
      ]);
      await cp.put(checkpoint('t', 3, { next: [] }));
      expect(await cp.listThreads({ status: 'done' })).toMatchObject([
        { thread: 't', failed: false, error: null },
      ]);
    });

    it('the failed status survives prune of older steps, and deleteThread removes the thread from it', async () => {
      const cp = await kit.create();
      for (const step of [0, 1, 2]) await cp.put(checkpoint('t', step, { next: ['work'] }));
      await cp.put(checkpoint('t', 3, { next: ['work'], error: BOOM }));
      expect(await cp.prune('t', { beforeStep: 3 })).toBe(3);
      expect((await cp.listThreads({ status: 'failed' })).map((i) => i.thread)).toEqual(['t']);
      await cp.deleteThread('t');
      expect(await cp.listThreads({ status: 'failed' })).toEqual([]);
    });

    if (kit.reopen) {
      const reopen = kit.reopen;
      it('error, meta and the failed status survive closing and reopening', async () => {
        const a = await kit.create();
        await a.put(checkpoint('t', 0, { next: ['work'], error: BOOM, meta: META }));
        const threads = await a.listThreads();
        await a.close();
        const b = await reopen(a);
        expect((await b.get('t'))?.error).toEqual(BOOM);
        expect((await b.get('t'))?.meta).toEqual(META);
        expect(await b.listThreads()).toEqual(threads);
        expect(await b.listThreads({ status: 'failed' })).toEqual(threads);
      });
    } else {
      it('failed runs: durability not declared by harness (no reopen), so error and meta across restarts are not checked', () => {
        expect(kit.reopen).toBeUndefined();
      });
    }
  },
};

/** Runs only the failed-runs suite: `describeFailedRuns('mine', harness)` (needs `capabilities.failedRuns`). */
export const describeFailedRuns = describerFor(failedRunsSuite);
