import type { Checkpoint, Checkpointer } from '@flow/core';
import { expect, it } from 'vitest';
import { checkpoint, codePointOrder } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';
import { expectFlowError } from '../expect-error.js';

/**
 * Valid ids that break naive storage: path tricks, ids that collide once escaped, case-folded,
 * Unicode-normalised or compared without trailing spaces (SQL PAD SPACE collations), quotes and backslashes
 * for SQL and key patterns, and the longest allowed id.
 */
export const HOSTILE_IDS: readonly string[] = [
  '../../x',
  '../x',
  '/abs',
  'a/b',
  'a%2Fb',
  'a%2fb',
  'a_b',
  'a:b',
  'a*b',
  'a?b',
  '[a]',
  'A',
  'a',
  "it's",
  '"quoted"',
  'back\\slash',
  '\\',
  '%',
  'with space',
  ' lead',
  'trail ',
  'a ',
  'a.',
  '.',
  '..',
  '...',
  '~',
  'CON',
  'emoji 😀🚀',
  'line\nbreak',
  'tab\there',
  'é',
  'e\u0301',
  'ｆｕｌｌ',
  '\u202Eright-to-left',
  'x'.repeat(512),
  '😀'.repeat(256),
];

/** Values every argument shaped like a thread id (thread, write node and key, lease owner) must reject. */
export const INVALID_IDS: ReadonlyArray<[label: string, id: unknown]> = [
  ["''", ''],
  ['513 characters', 'x'.repeat(513)],
  ['containing U+0000', 'a\u0000b'],
  ['a lone surrogate', 'a\uD800'],
  ['a number', 42],
  ['null', null],
  ['undefined', undefined],
  ['an object', { thread: 't' }],
];

/**
 * Every method that takes a thread id, called with `id`, by name: for checking that an invalid id is refused by
 * each of them (also outside the kit, by property tests).
 */
export function callsWithThreadId(cp: Checkpointer, id: unknown): Array<[string, () => Promise<unknown>]> {
  const thread = id as string;
  // A plain object, not a Checkpoint: the Checkpoint constructor would reject the id before the backend could.
  const raw = { thread, step: 0, state: {}, next: [], interrupted: false } as unknown as Checkpoint;
  return [
    ['put', () => cp.put(raw)],
    ['put with ifRevision: 0', () => cp.put(raw, { ifRevision: 0 })],
    ['get', () => cp.get(thread)],
    ['get with a step', () => cp.get(thread, 0)],
    ['list', () => cp.list(thread)],
    ['deleteThread', () => cp.deleteThread(thread)],
    ['prune', () => cp.prune(thread, { beforeStep: 1 })],
  ];
}

/** Thread ids: stored faithfully and isolated; invalid ones rejected by every method. */
export const threadIdsSuite: ConformanceSuite = {
  title: 'thread ids',
  define(kit) {
    it('stores hostile but valid ids faithfully, each isolated from the others', async () => {
      const cp = await kit.create();
      await Promise.all(HOSTILE_IDS.map((id, i) => cp.put(checkpoint(id, 0, { state: { i, id } }))));
      for (const [i, id] of HOSTILE_IDS.entries()) {
        const read = await cp.get(id);
        expect(read?.thread, `thread ${JSON.stringify(id)}`).toBe(id);
        expect(read?.state, `state of ${JSON.stringify(id)}`).toEqual({ i, id });
        expect(await cp.list(id), `list(${JSON.stringify(id)})`).toHaveLength(1);
      }
      const listed = (await cp.listThreads()).map((t) => t.thread);
      expect(listed).toEqual(codePointOrder(HOSTILE_IDS));
    });

    it("ids that look alike stay apart: 'a/b' vs 'a%2Fb', 'A' vs 'a', 'é' vs 'e\\u0301', 'a ' vs 'a'", async () => {
      const cp = await kit.create();
      const pairs: Array<[string, string]> = [
        ['a/b', 'a%2Fb'],
        ['A', 'a'],
        ['é', 'e\u0301'],
        ['..', '.'],
        ['a.', 'a'],
        // SQL PAD SPACE collations (MySQL's utf8mb4_bin, SQL Server) compare these as equal.
        ['a ', 'a'],
      ];
      for (const [x, y] of pairs) {
        await cp.put(checkpoint(x, 0, { state: x }));
        await cp.put(checkpoint(y, 0, { state: y }));
        await cp.put(checkpoint(y, 1, { state: y }));
        expect((await cp.list(x)).map((c) => c.state)).toEqual([x]);
        expect(await cp.deleteThread(x)).toBe(1);
        expect((await cp.list(y)).map((c) => c.state)).toEqual([y, y]);
        expect(await cp.prune(y, { beforeStep: 1 })).toBe(1);
        expect(await cp.get(x)).toBeUndefined();
        expect(await cp.deleteThread(y)).toBe(1);
      }
      expect(await cp.listThreads()).toEqual([]);
    });

    it('path-like ids never reach outside the store: deleting "../../x" leaves "x" and "a/b" alone', async () => {
      const cp = await kit.create();
      for (const id of ['x', '../../x', '../x', 'a', 'a/b', 'a/b/..'])
        await cp.put(checkpoint(id, 0, { state: id }));
      expect(await cp.deleteThread('../../x')).toBe(1);
      expect(await cp.deleteThread('a/b/..')).toBe(1);
      expect((await cp.listThreads()).map((t) => t.thread)).toEqual(
        codePointOrder(['x', '../x', 'a', 'a/b']),
      );
      expect((await cp.get('x'))?.state).toBe('x');
      expect((await cp.get('a'))?.state).toBe('a');
    });

    it('an id that starts another id is its own thread: deleteThread, prune, get, list, writes and leases of "order-1" leave "order-10", "order-1/x" and "order-1 " alone', async () => {
      const cp = await kit.create();
      // Ids a prefix scan of "order-1" (a key pattern "order-1*", LIKE 'order-1%', a directory walk) also finds.
      const others = ['order-10', 'order-1/x', 'order-1 ', 'order-1:2', 'order-1%'];
      for (const id of others)
        for (const step of [0, 1, 2]) await cp.put(checkpoint(id, step, { state: id }));
      if (kit.declares.writes)
        for (const id of others) await cp.putWrites(id, 1, [{ node: 'n', key: id, value: id }]);
      if (kit.declares.leases)
        for (const id of others) await cp.acquireLease(id, { owner: id, ttlMs: 60_000 });
      const untouched = async (when: string) => {
        for (const id of others) {
          const where = `${when}: thread ${JSON.stringify(id)}`;
          expect(
            (await cp.list(id)).map((c) => [c.step, c.state]),
            `${where} list`,
          ).toEqual([
            [2, id],
            [1, id],
            [0, id],
          ]);
          if (kit.declares.writes) {
            expect(await cp.getWrites(id, 1), `${where} getWrites`).toEqual([
              { node: 'n', key: id, value: id },
            ]);
          }
          if (kit.declares.leases) expect((await cp.getLease(id))?.owner, `${where} getLease`).toBe(id);
        }
        const listed = (await cp.listThreads()).map((t) => t.thread);
        expect(listed, `${when}: listThreads`).toEqual(expect.arrayContaining(others));
      };
      // Nothing is stored under "order-1" itself: every read of it is empty, none finds a longer id.
      expect(await cp.get('order-1'), 'get("order-1") with only longer ids stored').toBeUndefined();
      expect(await cp.list('order-1'), 'list("order-1") with only longer ids stored').toEqual([]);
      if (kit.declares.writes)
        expect(await cp.getWrites('order-1', 1), 'getWrites("order-1", 1)').toEqual([]);
      if (kit.declares.leases) expect(await cp.getLease('order-1'), 'getLease("order-1")').toBeUndefined();
      expect(
        await cp.prune('order-1', { beforeStep: 2 }),
        'prune("order-1") with only longer ids stored',
      ).toBe(0);
      expect(await cp.deleteThread('order-1'), 'deleteThread("order-1") with only longer ids stored').toBe(0);
      await untouched('after prune and deleteThread of the absent "order-1"');
      // With "order-1" stored too: its prune and delete remove its own checkpoints only.
      for (const step of [0, 1, 2]) await cp.put(checkpoint('order-1', step, { state: 'order-1' }));
      if (kit.declares.writes) await cp.putWrites('order-1', 1, [{ node: 'n', key: 'own', value: 1 }]);
      if (kit.declares.leases) await cp.releaseLease('order-1', 'order-10');
      expect(await cp.prune('order-1', { beforeStep: 2 }), 'prune("order-1", { beforeStep: 2 })').toBe(2);
      await untouched('after prune("order-1")');
      expect(await cp.deleteThread('order-1'), 'deleteThread("order-1")').toBe(1);
      await untouched('after deleteThread("order-1")');
      expect(await cp.get('order-1')).toBeUndefined();
    });

    it("rejects invalid ids ('', 513 characters, U+0000, a lone surrogate, non-strings) with InvalidArgumentError in every method, storing nothing", async () => {
      const cp = await kit.create();
      for (const [label, id] of INVALID_IDS) {
        for (const [method, call] of callsWithThreadId(cp, id)) {
          await expectFlowError(call, 'INVALID_ARGUMENT', `${method}(thread ${label})`);
        }
      }
      expect(await cp.listThreads()).toEqual([]);
    });

    it('rejects a listThreads after that is not a string with InvalidArgumentError', async () => {
      const cp = await kit.create();
      await expectFlowError(
        () => cp.listThreads({ after: 42 as unknown as string }),
        'INVALID_ARGUMENT',
        'listThreads({ after: 42 })',
      );
    });
  },
};

/** Runs only the thread-id checks: `describeThreadIds('mine', harness)`. */
export const describeThreadIds = describerFor(threadIdsSuite);
