import { Checkpoint, type PendingWrite } from '@flow/core';
import { afterAll, expect, it } from 'vitest';
import { checkpoint, range } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';
import { ChildPool } from '../process/child-pool.js';
import { kitTask } from '../process/kit-tasks.js';
import { richState } from './serialization.js';
import { HOSTILE_IDS, INVALID_IDS } from './thread-ids.js';

/** Starting node processes on a busy machine takes a while; the process race gets at least this long. */
const MIN_PROCESS_TIMEOUT = 60_000;

/** UTF-8 byte order, which is code-point order, computed without @flow/core. */
function byCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Writes in the order `getWrites` must answer them: code-point order of node, then of key. */
function inWriteOrder(writes: readonly PendingWrite[]): PendingWrite[] {
  return [...writes].sort((a, b) => byCodePoints(a.node, b.node) || byCodePoints(a.key, b.key));
}

const write = (node: string, key: string, value: unknown): PendingWrite => ({ node, key, value });

/**
 * Per-step writes: what a super-step's nodes produced, stored per (thread, step, node, key) with the first
 * value winning, atomically with a checkpoint when given to `put`, removed with their thread or pruned step.
 */
export const writesSuite: ConformanceSuite = {
  title: 'writes',
  define(kit, harness) {
    if (!kit.declares.writes) {
      // Said in the test name on purpose: a run without the capability must show that writes went unchecked.
      it('writes: not declared by harness (capabilities.writes), so per-step writes are not checked', () => {
        expect(kit.declares.writes).toBe(false);
      });
      return;
    }

    it('putWrites then getWrites round-trips every value kind the serializer supports', async () => {
      const cp = await kit.create();
      const values = richState();
      await cp.putWrites(
        't',
        0,
        Object.entries(values).map(([key, value]) => write('node', key, value)),
      );
      const read = await cp.getWrites('t', 0);
      expect(read.map((w) => w.key)).toEqual(Object.keys(values).sort(byCodePoints));
      for (const w of read) {
        expect(w.node).toBe('node');
        expect(w.value, `write ${w.key}`).toEqual(values[w.key]);
      }
      const byKey = new Map(read.map((w) => [w.key, w.value]));
      expect(byKey.get('date')).toBeInstanceOf(Date);
      expect(typeof byKey.get('bigint')).toBe('bigint');
      expect(byKey.get('map')).toBeInstanceOf(Map);
      expect(byKey.get('bytes')).toBeInstanceOf(Uint8Array);
    });

    it('getWrites answers in code-point order of (node, key), not in the order written or JS order', async () => {
      const cp = await kit.create();
      const names = ['b', 'a', 'B', '\uE000', '😀', 'a ', 'ab', 'é', 'e\u0301'];
      const writes = names.flatMap((node, i) => [
        write(node, names[(i + 3) % names.length]!, i),
        write(node, names[(i + 5) % names.length]!, -i),
      ]);
      await cp.putWrites('t', 1, writes);
      expect(await cp.getWrites('t', 1)).toEqual(inWriteOrder(writes));
    });

    it('the first value wins within one batch: a repeated (node, key) keeps the first', async () => {
      const cp = await kit.create();
      await cp.putWrites('t', 0, [
        write('n', 'k', 'first'),
        write('n', 'other', 1),
        write('n', 'k', 'second'),
      ]);
      expect(await cp.getWrites('t', 0)).toEqual([write('n', 'k', 'first'), write('n', 'other', 1)]);
    });

    it('the first value wins across calls: a later value for a stored key is ignored, not an error', async () => {
      const cp = await kit.create();
      await cp.putWrites('t', 0, [write('n', 'k', { v: 1 })]);
      await cp.putWrites('t', 0, [write('n', 'k', { v: 2 }), write('n', 'new', 3), write('m', 'k', 4)]);
      expect(
        await cp.getWrites('t', 0),
        'getWrites after a second putWrites (n/k keeps { v: 1 }, the new keys land)',
      ).toEqual([write('m', 'k', 4), write('n', 'k', { v: 1 }), write('n', 'new', 3)]);
      // A put carrying writes of the step meets the same rule.
      await cp.put(checkpoint('t', 0), { writes: [write('n', 'k', { v: 5 }), write('a', 'k', 6)] });
      expect(
        await cp.getWrites('t', 0),
        'getWrites after put(cp, { writes }) over stored keys (a/k is new and must be stored, n/k keeps { v: 1 })',
      ).toEqual([write('a', 'k', 6), write('m', 'k', 4), write('n', 'k', { v: 1 }), write('n', 'new', 3)]);
      expect((await cp.get('t', 0))?.step).toBe(0);
    });

    it('writes belong to one (thread, step): other steps and threads see none', async () => {
      const cp = await kit.create();
      await cp.putWrites('t', 2, [write('n', 'k', 'two')]);
      await cp.putWrites('u', 2, [write('n', 'k', 'other thread')]);
      expect(await cp.getWrites('t', 2)).toEqual([write('n', 'k', 'two')]);
      expect(await cp.getWrites('t', 1)).toEqual([]);
      expect(await cp.getWrites('t', 3)).toEqual([]);
      expect(await cp.getWrites('nobody', 2)).toEqual([]);
      expect(await cp.getWrites('u', 2)).toEqual([write('n', 'k', 'other thread')]);
    });

    it('an empty batch is accepted and stores nothing', async () => {
      const cp = await kit.create();
      await cp.putWrites('t', 0, []);
      await cp.put(checkpoint('t', 0), { writes: [] });
      expect(await cp.getWrites('t', 0)).toEqual([]);
    });

    it('concurrent putWrites of different values for one key: exactly one value survives and every reader sees it', async () => {
      const cp = await kit.create();
      const other = kit.reopen ? await kit.reopen(cp) : cp;
      const keys = ['k0', 'k1', 'k2'];
      // Each caller reads the step right after its own write: a stored key never changes, so it must
      // already read the value every other reader ends up with.
      const reads = await Promise.all(
        range(kit.raceWidth).map(async (i) => {
          const instance = i % 2 === 0 ? cp : other;
          await instance.putWrites(
            't',
            0,
            keys.map((key) => write('raced', key, { writer: i })),
          );
          return instance.getWrites('t', 0);
        }),
      );
      const seen = await cp.getWrites('t', 0);
      expect(seen.map((w) => w.key)).toEqual(keys);
      for (const w of seen) expect((w.value as { writer: number }).writer).toBeLessThan(kit.raceWidth);
      expect(await other.getWrites('t', 0)).toEqual(seen);
      for (const [i, read] of reads.entries()) expect(read, `what caller ${i} read`).toEqual(seen);
    });

    it('put(cp, { writes }) stores the checkpoint and its writes for (cp.thread, cp.step)', async () => {
      const cp = await kit.create();
      const stored = await cp.put(checkpoint('t', 3, { next: ['b'] }), {
        writes: [write('a', 'update', { n: 1 })],
      });
      expect(stored.revision).toBe(1);
      expect((await cp.get('t'))?.step).toBe(3);
      expect(
        await cp.getWrites('t', 3),
        'getWrites(thread, 3) after put(step 3, { writes }): the put must store its writes with the checkpoint',
      ).toEqual([write('a', 'update', { n: 1 })]);
      expect(await cp.getWrites('t', 2)).toEqual([]);
    });

    it('a conditional put that conflicts stores no write; a successful one stores both', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { state: 'first' }));
      await expectFlowError(
        () =>
          cp.put(checkpoint('t', 0, { state: 'lost' }), { ifRevision: 0, writes: [write('n', 'k', 'lost')] }),
        'CHECKPOINT_CONFLICT',
        'put(ifRevision: 0, writes) over a stored step',
      );
      await expectFlowError(
        () => cp.put(checkpoint('t', 1), { ifRevision: 4, writes: [write('n', 'k', 'lost')] }),
        'CHECKPOINT_CONFLICT',
        'put(ifRevision: 4, writes) on an empty step',
      );
      expect(await cp.getWrites('t', 0)).toEqual([]);
      expect(await cp.getWrites('t', 1)).toEqual([]);
      expect((await cp.get('t', 0))?.state).toBe('first');
      expect(await cp.get('t', 1)).toBeUndefined();
      await cp.put(checkpoint('t', 0, { state: 'second' }), {
        ifRevision: 1,
        writes: [write('n', 'k', 'won')],
      });
      expect((await cp.get('t', 0))?.state).toBe('second');
      expect(
        await cp.getWrites('t', 0),
        'getWrites after a successful put(ifRevision: 1, writes): it must store its writes with the checkpoint',
      ).toEqual([write('n', 'k', 'won')]);
    });

    it('racing conditional puts with writes: only the winner’s writes are stored', async () => {
      const cp = await kit.create();
      const results = await Promise.allSettled(
        range(kit.raceWidth).map((i) =>
          cp.put(checkpoint('t', 0, { state: { writer: i } }), {
            ifRevision: 0,
            writes: [write('n', `k${i}`, i)],
          }),
        ),
      );
      const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(
        winners,
        `${kit.raceWidth} racing put(ifRevision: 0, writes): the racers that resolved`,
      ).toHaveLength(1);
      expect((await cp.get('t', 0))?.state).toEqual({ writer: winners[0] });
      expect(
        await cp.getWrites('t', 0),
        'getWrites after the race: the winner’s writes, stored with its checkpoint, and no loser’s',
      ).toEqual([write('n', `k${winners[0]}`, winners[0])]);
    });

    it('put with writes keeps first-wins: a key stored earlier keeps its value', async () => {
      const cp = await kit.create();
      await cp.putWrites('t', 1, [write('n', 'k', 'early')]);
      await cp.put(checkpoint('t', 1), { writes: [write('n', 'k', 'late'), write('n', 'j', 'new')] });
      expect(
        await cp.getWrites('t', 1),
        'getWrites after put(cp, { writes }) over a key putWrites stored (n/j is new and must be stored, n/k keeps "early")',
      ).toEqual([write('n', 'j', 'new'), write('n', 'k', 'early')]);
    });

    it('deleteThread removes the thread’s writes, also of steps with no checkpoint, and no other thread’s', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0), { writes: [write('n', 'k', 0)] });
      await cp.putWrites('t', 7, [write('n', 'k', 7)]);
      await cp.putWrites('u', 0, [write('n', 'k', 'u')]);
      expect(await cp.deleteThread('t')).toBe(1);
      expect(await cp.getWrites('t', 0)).toEqual([]);
      expect(await cp.getWrites('t', 7)).toEqual([]);
      expect(await cp.getWrites('u', 0)).toEqual([write('n', 'k', 'u')]);
      await cp.putWrites('t', 0, [write('n', 'k', 'again')]);
      expect(await cp.getWrites('t', 0)).toEqual([write('n', 'k', 'again')]);
    });

    it('prune removes the writes of the steps it removes and keeps those of kept steps, and of a step not written yet', async () => {
      const cp = await kit.create();
      for (const step of [0, 1, 2, 3])
        await cp.put(checkpoint('t', step), { writes: [write('n', 'k', step)] });
      // The next super-step's results, stored before its checkpoint: prune never takes the steps to come.
      await cp.putWrites('t', 4, [write('n', 'k', 4)]);
      expect(await cp.prune('t', { beforeStep: 2 })).toBe(2);
      const removed = 'prune({ beforeStep: 2 }) must remove the writes of the steps it removes';
      expect(await cp.getWrites('t', 0), `getWrites of pruned step 0: ${removed}`).toEqual([]);
      expect(await cp.getWrites('t', 1), `getWrites of pruned step 1: ${removed}`).toEqual([]);
      const kept = 'stored by put(cp, { writes }), and prune keeps the writes of kept steps';
      expect(await cp.getWrites('t', 2), `getWrites of kept step 2: ${kept}`).toEqual([write('n', 'k', 2)]);
      expect(await cp.getWrites('t', 3), `getWrites of kept step 3: ${kept}`).toEqual([write('n', 'k', 3)]);
      expect(
        await cp.getWrites('t', 4),
        'getWrites of step 4, which has writes and no checkpoint yet: prune keeps it',
      ).toEqual([write('n', 'k', 4)]);
      expect((await cp.list('t')).map((c) => c.step)).toEqual([3, 2]);
    });

    it('hostile node and key strings are stored faithfully, each apart from the others', async () => {
      const cp = await kit.create();
      const writes = HOSTILE_IDS.flatMap((id, i) => [write(id, 'k', i), write('n', id, -i)]);
      await cp.putWrites('t', 0, writes);
      expect(await cp.getWrites('t', 0)).toEqual(inWriteOrder(writes));
      await cp.put(checkpoint(HOSTILE_IDS[0]!, 0), {
        writes: [write(HOSTILE_IDS[1]!, HOSTILE_IDS[2]!, 'x')],
      });
      expect(await cp.getWrites(HOSTILE_IDS[0]!, 0)).toEqual([write(HOSTILE_IDS[1]!, HOSTILE_IDS[2]!, 'x')]);
    });

    it('an invalid node or key is InvalidArgumentError, and nothing of the batch is written', async () => {
      const cp = await kit.create();
      for (const [label, bad] of INVALID_IDS) {
        for (const [field, w] of [
          ['node', { node: bad, key: 'k', value: 1 }],
          ['key', { node: 'n', key: bad, value: 1 }],
        ] as const) {
          const batch = [write('n', 'good', 1), w as PendingWrite];
          await expectFlowError(
            () => cp.putWrites('t', 0, batch),
            'INVALID_ARGUMENT',
            `putWrites(${field} ${label})`,
          );
          await expectFlowError(
            () => cp.put(checkpoint('t', 0), { writes: batch }),
            'INVALID_ARGUMENT',
            `put(writes with ${field} ${label})`,
          );
        }
      }
      for (const notWrites of [null, 'writes', { node: 'n', key: 'k', value: 1 }, [null], [42]]) {
        await expectFlowError(
          () => cp.putWrites('t', 0, notWrites as unknown as PendingWrite[]),
          'INVALID_ARGUMENT',
          `putWrites(${JSON.stringify(notWrites)})`,
        );
      }
      await expectFlowError(
        () => cp.putWrites('t', -1, [write('n', 'k', 1)]),
        'INVALID_ARGUMENT',
        'putWrites(step -1)',
      );
      await expectFlowError(() => cp.getWrites('t', 1.5), 'INVALID_ARGUMENT', 'getWrites(step 1.5)');
      await expectFlowError(() => cp.getWrites('', 0), 'INVALID_ARGUMENT', "getWrites(thread '')");
      expect(await cp.getWrites('t', 0)).toEqual([]);
      expect(await cp.get('t', 0)).toBeUndefined();
      expect(await cp.listThreads()).toEqual([]);
    });

    it('an unserializable value is SerializationError, and nothing of the batch or its checkpoint is written', async () => {
      const cp = await kit.create();
      const batch = [write('n', 'good', 1), write('n', 'bad', () => 1)];
      await expectFlowError(() => cp.putWrites('t', 0, batch), 'SERIALIZATION', 'putWrites(a function)');
      await expectFlowError(
        () => cp.put(checkpoint('t', 0), { writes: batch }),
        'SERIALIZATION',
        'put(writes with a function)',
      );
      expect(await cp.getWrites('t', 0)).toEqual([]);
      expect(await cp.get('t', 0)).toBeUndefined();
    });

    it('a write for a step with no checkpoint is stored, and listThreads ignores threads with only writes', async () => {
      const cp = await kit.create();
      await cp.putWrites('ghost', 3, [write('n', 'k', 'early')]);
      await cp.put(checkpoint('real', 0));
      expect(await cp.getWrites('ghost', 3)).toEqual([write('n', 'k', 'early')]);
      expect(await cp.get('ghost')).toBeUndefined();
      expect(await cp.list('ghost')).toEqual([]);
      expect((await cp.listThreads()).map((i) => i.thread)).toEqual(['real']);
      await cp.put(new Checkpoint({ thread: 'ghost', step: 3, state: null }));
      expect(await cp.getWrites('ghost', 3)).toEqual([write('n', 'k', 'early')]);
    });

    it('writes are snapshots: changing the value after putWrites changes nothing stored', async () => {
      const cp = await kit.create();
      const value = { list: [1] };
      await cp.putWrites('t', 0, [write('n', 'k', value)]);
      value.list.push(2);
      const [read] = await cp.getWrites('t', 0);
      expect(read?.value).toEqual({ list: [1] });
      (read!.value as { list: number[] }).list.push(3);
      expect((await cp.getWrites('t', 0))[0]?.value).toEqual({ list: [1] });
    });

    if (kit.reopen) {
      const reopen = kit.reopen;
      it('writes survive closing and reopening, and first-wins holds against the reopened instance', async () => {
        const a = await kit.create();
        await a.putWrites('t', 0, [write('n', 'k', new Date(0))]);
        await a.put(checkpoint('t', 1), { writes: [write('m', 'j', 10n)] });
        await a.close();
        const b = await reopen(a);
        expect(await b.getWrites('t', 0)).toEqual([write('n', 'k', new Date(0))]);
        expect(await b.getWrites('t', 1)).toEqual([write('m', 'j', 10n)]);
        await b.putWrites('t', 0, [write('n', 'k', 'late')]);
        expect(await b.getWrites('t', 0)).toEqual([write('n', 'k', new Date(0))]);
      });
    } else {
      it('writes: durability not declared by harness (no reopen), so writes across restarts are not checked', () => {
        expect(kit.reopen).toBeUndefined();
      });
    }

    if (kit.openInChild) {
      const openInChild = kit.openInChild;
      const n = kit.processes;
      const timeout = Math.max(MIN_PROCESS_TIMEOUT, harness.timeout ?? 0);
      const pool = new ChildPool(n);
      afterAll(() => pool.close());
      it(
        `${n} processes race putWrites of their own values for the same keys: one value per key survives, every process reads it`,
        async () => {
          const cp = await kit.create();
          const keys = range(6).map((i) => `key-${i}`);
          const reads = await pool.run<PendingWrite[]>(
            await openInChild(cp),
            kitTask('raceWrites'),
            { thread: 'raced', step: 0, keys },
            timeout - 5_000,
          );
          const stored = await cp.getWrites('raced', 0);
          expect(stored.map((w) => w.key)).toEqual(keys);
          for (const w of stored) expect((w.value as { writer: number }).writer).toBeLessThan(n);
          for (const [i, read] of reads.entries()) expect(read, `what process ${i} read`).toEqual(stored);
        },
        timeout,
      );
    } else {
      it('writes: process races not declared by harness (no openInChild), so writes across processes are not checked', () => {
        expect(kit.openInChild).toBeUndefined();
      });
    }
  },
};

/** Runs only the writes suite: `describeWrites('mine', harness)` (needs `capabilities.writes`). */
export const describeWrites = describerFor(writesSuite);
