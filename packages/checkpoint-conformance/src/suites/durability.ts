import { expect, it } from 'vitest';
import { at, checkpoint, putSteps, steps } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

/** Durability: a second instance on the same storage (the harness's `reopen`) sees every committed write. */
export const durabilitySuite: ConformanceSuite = {
  title: 'durability',
  define(kit) {
    const reopen = kit.reopen;
    if (!reopen) {
      // Said in the test name on purpose: a run without reopen must show that durability went unchecked.
      it('durability: not declared by harness (no reopen), so restarts are not checked', () => {
        expect(kit.reopen).toBeUndefined();
      });
      return;
    }

    it('what was put is read back by a second instance after the first is closed', async () => {
      const a = await kit.create();
      await putSteps(a, 't', [0, 1, 2], { next: ['work'] });
      const state = { when: new Date(0), big: 10n, tags: new Set(['x']) };
      await a.put(
        checkpoint('t', 3, {
          state,
          interrupted: true,
          interruptNode: 'review',
          interruptPayload: 'ok?',
          ts: at(3),
        }),
      );
      await a.put(checkpoint('other', 0));
      const expected = await a.list('t');
      const threads = await a.listThreads();
      await a.close();
      const b = await reopen(a);
      expect(await b.list('t')).toEqual(expected);
      expect((await b.get('t'))?.state).toEqual(state);
      expect(await b.listThreads()).toEqual(threads);
    });

    it("revisions continue on the second instance, and conflicts see the first one's writes", async () => {
      const a = await kit.create();
      await a.put(checkpoint('t', 0));
      await a.put(checkpoint('t', 0));
      const b = await reopen(a);
      const error = await expectFlowError(
        () => b.put(checkpoint('t', 0), { ifRevision: 0 }),
        'CHECKPOINT_CONFLICT',
        'second instance: put({ ifRevision: 0 }) over revision 2',
      );
      expect(error.actual).toBe(2);
      expect((await b.put(checkpoint('t', 0), { ifRevision: 2 })).revision).toBe(3);
      expect((await b.put(checkpoint('t', 0))).revision).toBe(4);
      expect((await a.get('t', 0))?.revision).toBe(4);
    });

    it('prune and deleteThread by one instance are seen by the other', async () => {
      const a = await kit.create();
      await putSteps(a, 't', [0, 1, 2, 3]);
      await putSteps(a, 'gone', [0, 1]);
      const b = await reopen(a);
      expect(await b.prune('t', { beforeStep: 2 })).toBe(2);
      expect(await b.deleteThread('gone')).toBe(2);
      await b.close();
      const c = await reopen(a);
      expect(steps(await a.list('t'))).toEqual([3, 2]);
      expect(steps(await c.list('t'))).toEqual([3, 2]);
      expect((await c.listThreads()).map((i) => i.thread)).toEqual(['t']);
    });
  },
};

/** Runs only the durability checks: `describeDurability('mine', harness)`. */
export const describeDurability = describerFor(durabilitySuite);
