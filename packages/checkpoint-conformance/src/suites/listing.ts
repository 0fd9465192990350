import { expect, it } from 'vitest';
import { checkpoint, putSteps, steps } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';

/** Reading one thread: `get` latest / by step / absent, `list` newest first with `beforeStep` and `limit`. */
export const listingSuite: ConformanceSuite = {
  title: 'listing',
  define(kit) {
    it('get(thread) returns the highest step, whatever the order of puts', async () => {
      const cp = await kit.create();
      await putSteps(cp, 't', [2, 10, 0, 7]);
      const latest = await cp.get('t');
      expect(latest?.step).toBe(10);
      expect(latest?.state).toEqual({ step: 10 });
    });

    it('get(thread, step) returns that step', async () => {
      const cp = await kit.create();
      await putSteps(cp, 't', [0, 1, 2]);
      const read = await cp.get('t', 1);
      expect(read?.step).toBe(1);
      expect(read?.state).toEqual({ step: 1 });
    });

    it('get returns undefined for an absent thread and an absent step', async () => {
      const cp = await kit.create();
      expect(await cp.get('nobody')).toBeUndefined();
      expect(await cp.get('nobody', 0)).toBeUndefined();
      await putSteps(cp, 't', [0, 2]);
      expect(await cp.get('t', 1)).toBeUndefined();
      expect(await cp.get('t', 3)).toBeUndefined();
    });

    it('list returns newest step first', async () => {
      const cp = await kit.create();
      await putSteps(cp, 't', [3, 0, 12, 5, 1]);
      const list = await cp.list('t');
      expect(steps(list)).toEqual([12, 5, 3, 1, 0]);
      expect(list.map((c) => c.state)).toEqual([12, 5, 3, 1, 0].map((step) => ({ step })));
    });

    it('list returns [] for an absent thread and only the asked thread', async () => {
      const cp = await kit.create();
      expect(await cp.list('nobody')).toEqual([]);
      await putSteps(cp, 'a', [0, 1]);
      await putSteps(cp, 'b', [0, 1, 2]);
      expect(steps(await cp.list('a'))).toEqual([1, 0]);
      expect((await cp.list('a')).every((c) => c.thread === 'a')).toBe(true);
    });

    it('list beforeStep is exclusive', async () => {
      const cp = await kit.create();
      await putSteps(cp, 't', [0, 1, 2, 4, 5]);
      expect(steps(await cp.list('t', { beforeStep: 4 }))).toEqual([2, 1, 0]);
      expect(steps(await cp.list('t', { beforeStep: 3 }))).toEqual([2, 1, 0]);
      expect(steps(await cp.list('t', { beforeStep: 0 }))).toEqual([]);
      expect(steps(await cp.list('t', { beforeStep: 100 }))).toEqual([5, 4, 2, 1, 0]);
    });

    it('list limit keeps the newest ones; limit 0 returns none', async () => {
      const cp = await kit.create();
      await putSteps(cp, 't', [0, 1, 2, 3]);
      expect(steps(await cp.list('t', { limit: 2 }))).toEqual([3, 2]);
      expect(steps(await cp.list('t', { limit: 10 }))).toEqual([3, 2, 1, 0]);
      expect(steps(await cp.list('t', { limit: 0 }))).toEqual([]);
      expect(steps(await cp.list('t', { beforeStep: 3, limit: 2 }))).toEqual([2, 1]);
    });

    it('list pages through the whole history with beforeStep and limit', async () => {
      const cp = await kit.create();
      const all = [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89];
      await Promise.all(all.map((step) => cp.put(checkpoint('t', step))));
      const seen: number[] = [];
      let beforeStep: number | undefined;
      for (let page = 0; page < 10; page++) {
        const chunk = await cp.list('t', { beforeStep, limit: 3 });
        if (chunk.length === 0) break;
        expect(chunk.length).toBeLessThanOrEqual(3);
        seen.push(...steps(chunk));
        beforeStep = chunk.at(-1)!.step;
      }
      expect(seen).toEqual([...all].reverse());
    });
  },
};

/** Runs only the listing checks: `describeListing('mine', harness)`. */
export const describeListing = describerFor(listingSuite);
