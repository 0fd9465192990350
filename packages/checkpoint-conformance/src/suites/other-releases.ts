import type { Checkpoint, Checkpointer, ThreadInfo } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';
import type { Kit } from '../kit.js';

/** Everything a store holds, through `listThreads` and `list`: what an upgrade must keep. */
async function everything(cp: Checkpointer): Promise<{ threads: ThreadInfo[]; lists: Checkpoint[][] }> {
  const threads = await cp.listThreads();
  const lists: Checkpoint[][] = [];
  for (const info of threads) lists.push(await cp.list(info.thread));
  return { threads, lists };
}

/** Every other read of the store agrees with `list` and `listThreads`. */
async function expectReadsAgree(cp: Checkpointer, held: Awaited<ReturnType<typeof everything>>) {
  for (const [i, info] of held.threads.entries()) {
    const list = held.lists[i]!;
    expect(list.length, `${info.thread} has checkpoints`).toBeGreaterThan(0);
    expect(info.latestStep, `${info.thread}: summary names the latest step`).toBe(list[0]!.step);
    expect(await cp.get(info.thread), `get(${info.thread})`).toEqual(list[0]);
    expect(await cp.list(info.thread, { limit: 1 })).toEqual([list[0]]);
    for (const c of list)
      expect(await cp.get(info.thread, c.step), `get(${info.thread}, ${c.step})`).toEqual(c);
  }
}

/** Writes of every kind the harness declares, on the upgraded store, read back. */
async function expectNewWrites(kit: Kit, cp: Checkpointer, held: Awaited<ReturnType<typeof everything>>) {
  expect((await cp.put(checkpoint('kit-new', 0, { state: { fresh: true } }))).revision).toBe(1);
  for (const [i, info] of held.threads.slice(0, 3).entries()) {
    const next = held.lists[i]![0]!.step + 1;
    const stored = await cp.put(checkpoint(info.thread, next, { state: 'after the upgrade' }), {
      ifRevision: 0,
    });
    expect(stored.revision).toBe(1);
    expect((await cp.get(info.thread))?.state).toBe('after the upgrade');
  }
  expect((await cp.listThreads()).map((t) => t.thread)).toContain('kit-new');
  if (kit.declares.writes) {
    await cp.putWrites('kit-new', 0, [{ node: 'a', key: 'k', value: { n: 1 } }]);
    expect(await cp.getWrites('kit-new', 0)).toEqual([{ node: 'a', key: 'k', value: { n: 1 } }]);
  }
  if (kit.declares.leases) {
    expect((await cp.acquireLease('kit-new', { owner: 'kit', ttlMs: 60_000 }))?.owner).toBe('kit');
  }
  if (kit.declares.failedRuns) {
    await cp.put(checkpoint('kit-new', 1, { next: ['a'], error: { node: 'a', message: 'boom' } }));
    expect((await cp.listThreads({ status: 'failed' })).map((t) => t.thread)).toContain('kit-new');
  }
}

/**
 * Other releases: `setup()` brings storage an earlier release left up to date (keeping what it held), and
 * refuses storage a newer release wrote. Needs the harness to make such storage (`earlierReleases`,
 * `newerRelease`): only the backend knows its layouts.
 */
export const otherReleasesSuite: ConformanceSuite = {
  title: 'other releases',
  define(kit) {
    const releases = Object.entries(kit.earlierReleases);
    if (releases.length === 0) {
      // Said in the test name on purpose: a run without earlier releases must show that upgrades went unchecked.
      it('other releases: not declared by harness (no earlierReleases), so upgrades are not checked', () => {
        expect(kit.earlierReleases).toEqual({});
      });
    }
    for (const [name, earlier] of releases) {
      it(`${name}: setup brings it up to date; what it held reads back the same through every read and after a reopen, and it takes new writes`, async () => {
        const cp = await earlier();
        await cp.setup();
        const held = await everything(cp);
        await expectReadsAgree(cp, held);
        if (kit.reopen) expect(await everything(await kit.reopen(cp))).toEqual(held);
        await expectNewWrites(kit, cp, held);
        if (kit.reopen) {
          const again = await kit.reopen(cp);
          expect((await again.get('kit-new', 0))?.state).toEqual({ fresh: true });
        }
      });

      if (kit.reopen) {
        const reopen = kit.reopen;
        it(`${name}: instances setting it up at once all resolve and read the same`, async () => {
          const a = await earlier();
          const others = [await reopen(a), await reopen(a)];
          await Promise.all([a.setup(), ...others.map((b) => b.setup())]);
          const held = await everything(a);
          for (const b of others) expect(await everything(b)).toEqual(held);
          await Promise.all([a, ...others].map((c, i) => c.put(checkpoint(`kit-${i}`, 0))));
          expect((await everything(others[0]!)).threads.length).toBe(held.threads.length + 3);
        });
      }
    }

    const newer = kit.newerRelease;
    if (!newer) {
      it('other releases: not declared by harness (no newerRelease), so refusing a newer store is not checked', () => {
        expect(kit.newerRelease).toBeUndefined();
      });
      return;
    }
    it('storage a newer release wrote is refused with StorageError naming the backend, by setup and by every call after it', async () => {
      const cp = await newer();
      for (const [call, run] of [
        ['setup()', () => cp.setup()],
        ['put(t, 0)', () => cp.put(checkpoint('t', 0))],
        ['get(t)', () => cp.get('t')],
        ['listThreads()', () => cp.listThreads()],
      ] as const) {
        const error = await expectFlowError(run, 'STORAGE', `${call} on storage of a newer release`);
        expect(error.message, call).toMatch(/^\[flow:[^\]\s]+\] /);
      }
    });
  },
};

/** Runs only the checks of other releases' storage: `describeOtherReleases('mine', harness)`. */
export const describeOtherReleases = describerFor(otherReleasesSuite);
