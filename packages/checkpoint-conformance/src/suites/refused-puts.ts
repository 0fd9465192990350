import type { Checkpointer, PutOptions } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';
import type { Kit } from '../kit.js';

const REFUSED = 'refused-7';

/** A chat of `count` ~200-byte messages: large enough (over 2 KB of JSON) to be stored as chunks. */
function chat(count: number): { messages: string[] } {
  return { messages: Array.from({ length: count }, (_, i) => `m${i} ${'the quick brown fox '.repeat(10)}`) };
}

/** A fresh store, set up, holding step 0 of the refused thread, which then refuses every new checkpoint. */
async function refusing(kit: Kit, refuse: (cp: Checkpointer, thread: string) => Promise<void>) {
  const cp = await kit.create();
  await cp.setup();
  await cp.put(checkpoint(REFUSED, 0, { state: chat(30) }));
  await refuse(cp, REFUSED);
  return cp;
}

/** Everything stored for the refused thread, as every read and the chunk count see it. */
async function storedOf(kit: Kit, cp: Checkpointer) {
  return {
    list: await cp.list(REFUSED),
    threads: await cp.listThreads(),
    writes: kit.declares.writes ? await cp.getWrites(REFUSED, 1) : [],
    chunks: await kit.countChunks?.(cp, REFUSED),
  };
}

/**
 * Refused puts: a put the store itself refuses (a trigger, a constraint checked at COMMIT) is atomic on its
 * own, as every put is (docs/protocol.md, "Writing"): it rejects with `StorageError`, leaves nothing of it
 * stored, and takes no other put down with it; the puts issued in the same moment (one group commit, where
 * the backend groups them) still land, once each, and resolve only once stored. Runs once per refusal the
 * harness declares (`harness.refuse`): only the backend can make its store refuse.
 */
export const refusedPutsSuite: ConformanceSuite = {
  title: 'refused puts',
  define(kit) {
    const refusals = Object.entries(kit.refuse);
    if (refusals.length === 0) {
      // Said in the test name on purpose: a run without a refusal must show that this went unchecked.
      it('refused puts: not declared by harness (no refuse), so a put the store refuses is not checked', () => {
        expect(kit.refuse).toEqual({});
      });
      return;
    }

    for (const [name, refuse] of refusals) {
      it(`${name}: the refused put rejects with StorageError holding the store's error, and stores nothing: no checkpoint, writes, chunks or summary change`, async () => {
        const cp = await refusing(kit, refuse);
        const before = await storedOf(kit, cp);
        const options: PutOptions = kit.declares.writes
          ? { writes: [{ node: 'plan', key: 'out', value: 'lost' }] }
          : {};
        const error = await expectFlowError(
          () => cp.put(checkpoint(REFUSED, 1, { state: chat(31) }), options),
          'STORAGE',
          `put(${REFUSED}, 1) after "${name}"`,
        );
        expect(error.cause, 'cause holds what the store said').toBeInstanceOf(Error);
        expect(await cp.get(REFUSED, 1)).toBeUndefined();
        expect(await storedOf(kit, cp)).toEqual(before);
      });

      it(`${name}: puts issued together with a refused one land once each and resolve, wherever it stands among them; it alone rejects`, async () => {
        const cp = await refusing(kit, refuse);
        await cp.put(checkpoint('held', 0));
        // As wide as a race, so a backend that groups only when its connections are all busy groups too.
        const width = kit.raceWidth;
        /** Each landed thread's state and writes, to read back. */
        const landed = new Map<string, { state: unknown; writes: unknown[] }>();
        for (const position of [0, width >> 1, width - 1]) {
          const names = Array.from({ length: width }, (_, i) => `landed-${position}-${i}`);
          const puts = names.map((thread, i) => {
            if (i === position) {
              const state = position === 0 ? chat(31) : { refused: position };
              return cp.put(checkpoint(REFUSED, 1 + position, { state }));
            }
            // Conditional with a large state, with writes, or plain: each kind of put may share the group.
            if (i % 3 === 0) {
              landed.set(thread, { state: chat(30 + i), writes: [] });
              return cp.put(checkpoint(thread, 0, { state: chat(30 + i) }), { ifRevision: 0 });
            }
            const writes =
              i % 3 === 1 && kit.declares.writes ? [{ node: 'plan', key: 'out', value: thread }] : [];
            landed.set(thread, { state: { step: 0 }, writes });
            return cp.put(checkpoint(thread, 0), writes.length > 0 ? { writes } : {});
          });
          // A put of its own that conflicts rejects with its own error, whatever else in its group failed.
          const conflict = cp.put(checkpoint('held', 0, { state: 'second' }), { ifRevision: 0 });
          const settled = await Promise.allSettled([...puts, conflict]);
          for (const [i, result] of settled.slice(0, width).entries()) {
            if (i === position) {
              expect(result.status, `the refused put at ${position}`).toBe('rejected');
              const reason = (result as PromiseRejectedResult).reason as { code?: unknown };
              expect(reason?.code, `the refused put at ${position} is a StorageError`).toBe('STORAGE');
              continue;
            }
            expect(result.status, `${names[i]}, issued with a refused put at ${position}`).toBe('fulfilled');
            const stored = (result as PromiseFulfilledResult<{ revision: number }>).value;
            expect(stored.revision, `${names[i]} was stored once`).toBe(1);
          }
          await expectFlowError(() => conflict, 'CHECKPOINT_CONFLICT', 'the conflicting put among them');
        }
        // Resolved means stored: another instance on the storage reads every one, and nothing refused.
        const reader = kit.reopen === undefined ? cp : await kit.reopen(cp);
        for (const [thread, { state, writes }] of landed) {
          const got = await reader.get(thread, 0);
          expect({ state: got?.state, revision: got?.revision }, `${thread} read back`).toEqual({
            state,
            revision: 1,
          });
          if (kit.declares.writes)
            expect(await reader.getWrites(thread, 0), `${thread}'s writes`).toEqual(writes);
        }
        expect((await reader.get(REFUSED))?.step, 'the refused thread keeps its step 0').toBe(0);
        expect((await reader.get('held'))?.state).toEqual({ step: 0 });
        const threads = (await reader.listThreads()).map((info) => info.thread);
        expect(threads.sort()).toEqual(['held', REFUSED, ...landed.keys()].sort());
      });
    }
  },
};

/** Runs only the refused-puts checks: `describeRefusedPuts('mine', harness)`. */
export const describeRefusedPuts = describerFor(refusedPutsSuite);
