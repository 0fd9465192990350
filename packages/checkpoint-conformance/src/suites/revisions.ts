import { expect, it } from 'vitest';
import { checkpoint, observe } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

/** Revisions and `ifRevision`: write counts, conditional writes, conflicts that change nothing. */
export const revisionsSuite: ConformanceSuite = {
  title: 'revisions',
  define(kit) {
    it('an unconditional put bumps the revision: 1 when new, then old + 1', async () => {
      const cp = await kit.create();
      const revisions: number[] = [];
      for (let i = 0; i < 3; i++) revisions.push((await cp.put(checkpoint('t', 5, { state: i }))).revision);
      expect(revisions).toEqual([1, 2, 3]);
      expect((await cp.get('t', 5))?.revision).toBe(3);
    });

    it('counts revisions per (thread, step)', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 1));
      await cp.put(checkpoint('t', 1));
      expect((await cp.put(checkpoint('t', 2))).revision).toBe(1);
      expect((await cp.put(checkpoint('other', 1))).revision).toBe(1);
      expect((await cp.get('t', 1))?.revision).toBe(2);
    });

    it('ifRevision: n writes when the stored revision is n', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { state: 'v1' }));
      await cp.put(checkpoint('t', 0, { state: 'v2' }));
      const written = await cp.put(checkpoint('t', 0, { state: 'v3' }), { ifRevision: 2 });
      expect(written.revision).toBe(3);
      const read = await cp.get('t', 0);
      expect(read?.state).toBe('v3');
      expect(read?.revision).toBe(3);
    });

    it('ifRevision: 0 writes when nothing is stored at (thread, step)', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      const written = await cp.put(checkpoint('t', 1, { state: 'fresh' }), { ifRevision: 0 });
      expect(written.revision).toBe(1);
      expect((await cp.get('t', 1))?.state).toBe('fresh');
    });

    it('a stale ifRevision rejects with CheckpointConflict carrying thread, step, expected, actual', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 4, { state: 'v1' }));
      await cp.put(checkpoint('t', 4, { state: 'v2' }));
      const error = await expectFlowError(
        () => cp.put(checkpoint('t', 4, { state: 'stale' }), { ifRevision: 1 }),
        'CHECKPOINT_CONFLICT',
        'put(step 4, { ifRevision: 1 }) with revision 2 stored',
      );
      expect({
        thread: error.thread,
        step: error.step,
        expected: error.expected,
        actual: error.actual,
      }).toEqual({
        thread: 't',
        step: 4,
        expected: 1,
        actual: 2,
      });
    });

    it('ifRevision: 0 on a stored step rejects with actual = the stored revision', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      const error = await expectFlowError(
        () => cp.put(checkpoint('t', 0), { ifRevision: 0 }),
        'CHECKPOINT_CONFLICT',
        'put(step 0, { ifRevision: 0 }) with revision 1 stored',
      );
      expect({ expected: error.expected, actual: error.actual }).toEqual({ expected: 0, actual: 1 });
    });

    it('ifRevision: n > 0 on an absent step rejects with actual 0 and stores nothing', async () => {
      const cp = await kit.create();
      const error = await expectFlowError(
        () => cp.put(checkpoint('ghost', 0), { ifRevision: 3 }),
        'CHECKPOINT_CONFLICT',
        'put(absent step, { ifRevision: 3 })',
      );
      expect({
        thread: error.thread,
        step: error.step,
        expected: error.expected,
        actual: error.actual,
      }).toEqual({
        thread: 'ghost',
        step: 0,
        expected: 3,
        actual: 0,
      });
      expect(await cp.get('ghost')).toBeUndefined();
      expect(await cp.list('ghost')).toEqual([]);
      expect(await cp.listThreads()).toEqual([]);
    });

    it('a conflict leaves storage unchanged: state, revision, ts, history and thread summary', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 1, { next: ['a'], ts: '2024-01-01T00:00:00.000Z' }));
      await cp.put(checkpoint('t', 3, { next: ['b'], ts: '2024-01-01T00:00:01.000Z' }));
      const before = await observe(cp, 't');
      await expectFlowError(
        () => cp.put(checkpoint('t', 3, { state: 'lost', next: [] }), { ifRevision: 7 }),
        'CHECKPOINT_CONFLICT',
        'put(step 3, { ifRevision: 7 })',
      );
      await expectFlowError(
        () => cp.put(checkpoint('t', 9, { state: 'lost', interrupted: true }), { ifRevision: 1 }),
        'CHECKPOINT_CONFLICT',
        'put(absent step 9, { ifRevision: 1 })',
      );
      expect(await observe(cp, 't')).toEqual(before);
    });

    it('after a conflict, a retry with the actual revision succeeds', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      const error = await expectFlowError(
        () => cp.put(checkpoint('t', 0), { ifRevision: 0 }),
        'CHECKPOINT_CONFLICT',
        'put(step 0, { ifRevision: 0 })',
      );
      const retried = await cp.put(checkpoint('t', 0, { state: 'retried' }), {
        ifRevision: error.actual as number,
      });
      expect(retried.revision).toBe(2);
    });
  },
};

/** Runs only the revision checks: `describeRevisions('mine', harness)`. */
export const describeRevisions = describerFor(revisionsSuite);
