import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FileCheckpointer } from '@flow/checkpoint-file';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint, type Checkpointer, isFlowError, StorageError } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { CHAOS_INPUT, chaosGraph } from './fixtures/chaos-graph.mjs';
import { crashState } from './fixtures/crash-states.mjs';
import { uninterrupted } from './support/chaos-runs.js';
import { fileStoreEntries, sleep, sqliteIntegrity } from './support/crash.js';
import { count } from './support/figures.js';
import { mountSmallDisk, type SmallDisk } from './support/tmpfs.js';

/** Rounds of fill → refused writes → checks → free → writes again, and write attempts per full disk. */
const ROUNDS = 3;
const ATTEMPTS = 30;
/** What the driver says when the disk is full: Node's errno, SQLite's result code. */
const FULL = { file: 'ENOSPC', sqlite: 'SQLITE_FULL' } as const;

type Backend = keyof typeof FULL;

function open(backend: Backend, dir: string): Checkpointer {
  return backend === 'file'
    ? new FileCheckpointer(join(dir, 'store'))
    : new SqliteCheckpointer(join(dir, 'flow.db'));
}

/** A refused write: a StorageError (class and code) whose cause is the driver's disk-full error. */
function expectDiskFull(error: unknown, backend: Backend, what: string): void {
  expect(error, what).toBeInstanceOf(StorageError);
  expect(isFlowError(error, 'STORAGE'), what).toBe(true);
  expect((error as StorageError).message, what).toMatch(new RegExp(`^\\[flow:${backend}\\] `));
  expect((error as { cause?: { code?: string } }).cause?.code, what).toBe(FULL[backend]);
}

/** Puts the thread's next step (read back first, as the engine does: a refused put may have landed). */
async function putNext(cp: Checkpointer, thread: string, size: number): Promise<Checkpoint> {
  const step = ((await cp.get(thread))?.step ?? -1) + 1;
  const state = { ...crashState(thread, step), pad: '#'.repeat(size) };
  return cp.put(new Checkpoint({ thread, step, state, next: ['again'] }), { ifRevision: 0 });
}

/** Everything stored reads back exactly, through `cp` and through a fresh instance; listThreads agrees. */
async function expectIntact(
  backend: Backend,
  dir: string,
  cp: Checkpointer,
  stored: ReadonlyMap<string, Map<number, unknown>>,
): Promise<number> {
  let checked = 0;
  const fresh = open(backend, dir);
  try {
    for (const reader of [cp, fresh]) {
      for (const [thread, steps] of stored) {
        const list = await reader.list(thread);
        expect(
          list.map((c) => c.step),
          `steps of ${thread}`,
        ).toEqual([...list.keys()].map((i) => list.length - 1 - i));
        for (const c of list) {
          expect(c.revision, `revision of ${thread} step ${c.step}`).toBe(1);
          // A refused put may have landed whole; then it holds exactly what was put.
          if (steps.has(c.step))
            expect(c.state, `state of ${thread} step ${c.step}`).toEqual(steps.get(c.step));
          else expect(c.state, `state of ${thread} step ${c.step}`).toMatchObject(crashState(thread, c.step));
        }
        for (const step of steps.keys())
          expect(
            list.some((c) => c.step === step),
            `${thread} step ${step}`,
          ).toBe(true);
        checked += list.length;
      }
      const infos = await reader.listThreads();
      for (const info of infos) expect(info.latestStep).toBe((await reader.get(info.thread))?.step);
    }
  } finally {
    await fresh.close();
  }
  return checked;
}

for (const backend of ['file', 'sqlite'] as const) {
  describe(`${backend}: a full disk (a 2 MB tmpfs)`, () => {
    let disk: SmallDisk | undefined;
    const opened: Checkpointer[] = [];
    afterAll(async () => {
      for (const cp of opened) await cp.close().catch(() => {});
      await disk?.remove();
    });

    it(`writes fail with StorageError (${FULL[backend]}), nothing stored is corrupted, writes succeed once space is freed (${ROUNDS} rounds)`, async () => {
      disk = await mountSmallDisk();
      const cp = open(backend, disk.dir);
      opened.push(cp);
      const threads = ['full/a', 'full b ✓'];
      /** Every acknowledged put: thread → step → state. */
      const stored = new Map<string, Map<number, unknown>>(threads.map((t) => [t, new Map()]));
      const remember = (c: Checkpoint) => stored.get(c.thread)!.set(c.step, c.state);
      for (let i = 0; i < 10; i++) for (const t of threads) remember(await putNext(cp, t, 100 * i));
      await cp.putWrites(threads[0]!, 9, [{ node: 'n', key: 'update', value: { kept: true } }]);

      let refused = 0;
      let checked = 0;
      for (let round = 0; round < ROUNDS; round++) {
        expect(disk.fill(), 'bytes the filler took').toBeGreaterThan(0);
        let refusedNow = 0;
        for (let i = 0; i < ATTEMPTS; i++) {
          const thread = threads[i % threads.length]!;
          // 10 B to 64 KB: small writes fail too, not only those bigger than what is left.
          const size = [10, 700, 4_000, 64_000][i % 4]!;
          try {
            remember(await putNext(cp, thread, size));
          } catch (error) {
            expectDiskFull(error, backend, `put ${i} of round ${round}`);
            refusedNow++;
          }
        }
        // The other writing calls are refused the same way.
        for (const write of [
          () => cp.putWrites(threads[1]!, 0, [{ node: 'n', key: `k${round}`, value: 'x'.repeat(8000) }]),
          () => cp.acquireLease(`lease ${round}`, { owner: 'o', ttlMs: 1000 }),
          () => cp.put(new Checkpoint({ thread: `new ${round}`, step: 0, state: 'y'.repeat(20_000) })),
        ]) {
          const outcome = await write().then(
            () => undefined,
            (error: unknown) => error,
          );
          if (outcome !== undefined) {
            expectDiskFull(outcome, backend, `a write of round ${round}`);
            refusedNow++;
          }
        }
        expect(refusedNow, `writes refused on the full disk in round ${round}`).toBeGreaterThan(0);
        refused += refusedNow;
        checked += await expectIntact(backend, disk.dir, cp, stored);
        expect((await cp.getWrites(threads[0]!, 9)).map((w) => w.value)).toEqual([{ kept: true }]);

        disk.free();
        for (const t of threads) remember(await putNext(cp, t, 64_000));
        // The refused per-step write, made again, is stored whole (a half-written one must not win).
        const write = { node: 'n', key: `k${round}`, value: 'x'.repeat(8000) };
        await cp.putWrites(threads[1]!, 0, [write]);
        expect((await cp.getWrites(threads[1]!, 0)).find((w) => w.key === write.key)).toEqual(write);
        checked += await expectIntact(backend, disk.dir, cp, stored);
      }

      if (backend === 'file') {
        const { steps } = fileStoreEntries(join(disk.dir, 'store'));
        const listed = (await cp.listThreads()).reduce((n, t) => n + t.latestStep + 1, 0);
        expect(steps, 'step files on disk = checkpoints listed').toBe(listed);
      } else {
        expect(sqliteIntegrity(join(disk.dir, 'flow.db'))).toBe('ok');
      }
      count(`disk full: ${backend}`, 'faults injected', refused);
      count(`disk full: ${backend}`, 'inputs tried', checked);
      count(`disk full: ${backend}`, 'data lost', 0);
    });

    it('a graph run on the full disk fails with StorageError and finishes with the uninterrupted state once space is freed', async () => {
      disk ??= await mountSmallDisk();
      const cp = open(backend, disk.dir);
      opened.push(cp);
      const app = chaosGraph(cp, { leaseMs: 200 });
      const thread = 'run on a full disk';
      disk.fill();
      const failed = await app.invoke(CHAOS_INPUT, { thread }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expectDiskFull(failed, backend, 'the run on the full disk');
      disk.free();
      // The failed call may have left its lease (it could not release it on the full disk): it expires.
      let result: Awaited<ReturnType<typeof app.resume>> | undefined;
      for (let attempt = 0; result === undefined; attempt++) {
        try {
          result =
            (await cp.get(thread)) === undefined
              ? await app.invoke(CHAOS_INPUT, { thread })
              : await app.resume(thread);
        } catch (error) {
          if (!isFlowError(error, 'THREAD_BUSY') || attempt > 20) throw error;
          await sleep(100);
        }
      }
      expect(result.status).toBe('done');
      expect(result.state).toEqual((await uninterrupted(thread)).state);
      const history = await app.history(thread);
      expect(history.map((c) => c.step)).toEqual(history.map((_, i) => history.length - 1 - i));
      expect(history.filter((c) => c.revision !== 1)).toEqual([]);
      count(`disk full: ${backend}`, 'faults injected', 1);
    });

    it('an overwrite (put without ifRevision) on the full disk rejects or is stored: no resolved put is lost', async () => {
      disk ??= await mountSmallDisk();
      const cp = open(backend, disk.dir);
      opened.push(cp);
      const threads = ['overwrite a', 'overwrite b'];
      /** What each (thread, step) last resolved with: its revision and state. */
      const acked = new Map<string, { thread: string; step: number; revision: number; state: unknown }>();
      let serial = 0;
      const overwrite = async (thread: string, step: number, size: number) => {
        // A state unlike any other, so nothing of it is shared with a stored one.
        const state = { serial: ++serial, pad: randomBytes(size).toString('base64') };
        const c = await cp.put(new Checkpoint({ thread, step, state }));
        acked.set(`${thread}/${step}`, { thread, step, revision: c.revision, state });
      };
      for (const t of threads) for (let step = 0; step < 3; step++) await overwrite(t, step, 100);
      disk.fill();
      let refused = 0;
      for (let i = 0; i < ATTEMPTS; i++) {
        try {
          await overwrite(threads[i % 2]!, i % 3, [10, 700, 4_000, 64_000][i % 4]!);
        } catch (error) {
          expectDiskFull(error, backend, `overwrite ${i}`);
          refused++;
        }
      }
      const fresh = open(backend, disk.dir);
      try {
        for (const reader of [cp, fresh])
          for (const { thread, step, revision, state } of acked.values()) {
            const stored = await reader.get(thread, step);
            expect({ revision: stored?.revision, state: stored?.state }, `${thread} step ${step}`).toEqual({
              revision,
              state,
            });
          }
      } finally {
        await fresh.close();
      }
      expect(refused, 'overwrites refused on the full disk').toBeGreaterThan(0);
      disk.free();
      for (const t of threads) await overwrite(t, 0, 64_000);
      expect((await cp.get(threads[0]!, 0))?.revision).toBe(acked.get(`${threads[0]}/0`)!.revision);
      count(`disk full: ${backend}`, 'faults injected', refused);
    });
  });
}
