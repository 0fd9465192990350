import type { Checkpointer } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

function everyCall(cp: Checkpointer): Array<[string, () => Promise<unknown>]> {
  return [
    ['setup()', () => cp.setup()],
    ['put()', () => cp.put(checkpoint('t', 1))],
    ['get()', () => cp.get('t')],
    ['list()', () => cp.list('t')],
    ['listThreads()', () => cp.listThreads()],
    ['deleteThread()', () => cp.deleteThread('t')],
    ['prune()', () => cp.prune('t', { beforeStep: 1 })],
  ];
}

/** Close: resolves, may be called twice, and a closed instance rejects every further call. */
export const closeSuite: ConformanceSuite = {
  title: 'close',
  define(kit) {
    it('close() resolves, also on an instance that never did anything, and a second close() resolves', async () => {
      const idle = await kit.create();
      await expect(idle.close()).resolves.toBeUndefined();
      const used = await kit.create();
      await used.put(checkpoint('t', 0));
      await expect(used.close()).resolves.toBeUndefined();
      await expect(used.close()).resolves.toBeUndefined();
    });

    it('after close() every method rejects with StorageError', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0));
      await cp.close();
      for (const [label, call] of everyCall(cp))
        await expectFlowError(call, 'STORAGE', `${label} after close()`);
    });
  },
};

/** Runs only the close checks: `describeClose('mine', harness)`. */
export const describeClose = describerFor(closeSuite);
