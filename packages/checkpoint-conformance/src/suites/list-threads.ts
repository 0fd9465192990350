import type { Checkpointer, ThreadInfo } from '@flow/core';
import { expect, it } from 'vitest';
import { at, checkpoint, codePointOrder, putSteps } from '../builders.js';
import { type ConformanceSuite, describerFor } from '../define-suite.js';

/**
 * Ids whose code-point order differs from JS `<`: astral characters (surrogate pairs 0xD800–0xDFFF in UTF-16)
 * sort after U+E000–U+FFFF by code point, but before them by UTF-16 unit. Plus ASCII case, prefixes and
 * non-ASCII letters.
 */
export const ORDER_IDS: readonly string[] = [
  'a',
  'B',
  'b',
  'ab',
  'a b',
  'a/b',
  'Z',
  '~',
  'é',
  'ÿ',
  'Ā',
  '中文',
  '\uE000',
  '\uFF5E',
  '\uFFFD',
  '😀',
  '𝄞',
  'a😀',
  'a\uFFFD',
  'a\uE000z',
];

async function putThreads(cp: Checkpointer, ids: readonly string[]): Promise<void> {
  await Promise.all(ids.map((id, i) => cp.put(checkpoint(id, i % 3, { ts: at(i) }))));
}

const ids = (infos: readonly ThreadInfo[]) => infos.map((t) => t.thread);

/** Listing threads: code-point order, `after`/`limit` paging, `status`, and the exact ThreadInfo shape. */
export const listThreadsSuite: ConformanceSuite = {
  title: 'listThreads',
  define(kit) {
    it('returns [] when nothing is stored', async () => {
      const cp = await kit.create();
      expect(await cp.listThreads()).toEqual([]);
    });

    it('sorts thread ids in code-point order (astral after U+E000–U+FFFF, not JS sort)', async () => {
      const cp = await kit.create();
      await putThreads(cp, ORDER_IDS);
      const expected = codePointOrder(ORDER_IDS);
      // Guard the fixture itself: it must tell code-point order from UTF-16 order.
      expect(expected).not.toEqual([...ORDER_IDS].sort());
      expect(ids(await cp.listThreads())).toEqual(expected);
    });

    it('lists one entry per thread, however many checkpoints it has', async () => {
      const cp = await kit.create();
      await putSteps(cp, 'x', [0, 1, 2, 3]);
      await putSteps(cp, 'y', [0]);
      expect(ids(await cp.listThreads())).toEqual(['x', 'y']);
    });

    it('after is exclusive, and works with an id that is not stored', async () => {
      const cp = await kit.create();
      await putThreads(cp, ORDER_IDS);
      const all = codePointOrder(ORDER_IDS);
      expect(ids(await cp.listThreads({ after: 'b' }))).toEqual(all.slice(all.indexOf('b') + 1));
      expect(ids(await cp.listThreads({ after: '\uFFFD' }))).toEqual(all.slice(all.indexOf('\uFFFD') + 1));
      // 'aa' is not stored: everything after it in code-point order.
      expect(ids(await cp.listThreads({ after: 'aa' }))).toEqual(all.slice(all.indexOf('ab')));
      expect(await cp.listThreads({ after: all.at(-1)! })).toEqual([]);
    });

    it('limit caps the page; limit 0 returns none', async () => {
      const cp = await kit.create();
      await putThreads(cp, ORDER_IDS);
      const all = codePointOrder(ORDER_IDS);
      expect(ids(await cp.listThreads({ limit: 3 }))).toEqual(all.slice(0, 3));
      expect(ids(await cp.listThreads({ after: all[4]!, limit: 2 }))).toEqual(all.slice(5, 7));
      expect(await cp.listThreads({ limit: 0 })).toEqual([]);
    });

    it('pages across the whole set with after and limit', async () => {
      const cp = await kit.create();
      await putThreads(cp, ORDER_IDS);
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < ORDER_IDS.length + 1; page++) {
        const chunk = await cp.listThreads({ after, limit: 3 });
        if (chunk.length === 0) break;
        expect(chunk.length).toBeLessThanOrEqual(3);
        seen.push(...ids(chunk));
        after = chunk.at(-1)!.thread;
      }
      expect(seen).toEqual(codePointOrder(ORDER_IDS));
    });

    it('filters by status: running, interrupted, done', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('r1', 0, { next: ['work'] }));
      await cp.put(checkpoint('i1', 0, { interrupted: true, interruptNode: 'review', next: ['review'] }));
      await cp.put(checkpoint('d1', 0));
      await cp.put(checkpoint('r2', 0, { next: ['work'] }));
      // An interrupted checkpoint with an empty frontier is still interrupted, not done.
      await cp.put(checkpoint('i2', 0, { interrupted: true, interruptNode: 'gate' }));
      await cp.put(checkpoint('d2', 0));
      expect(ids(await cp.listThreads({ status: 'running' }))).toEqual(['r1', 'r2']);
      expect(ids(await cp.listThreads({ status: 'interrupted' }))).toEqual(['i1', 'i2']);
      expect(ids(await cp.listThreads({ status: 'done' }))).toEqual(['d1', 'd2']);
      expect(ids(await cp.listThreads())).toEqual(['d1', 'd2', 'i1', 'i2', 'r1', 'r2']);
    });

    it('status filters before limit and after apply, so pages of one status are full', async () => {
      const cp = await kit.create();
      const threads = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
      await Promise.all(threads.map((t, i) => cp.put(checkpoint(t, 0, { next: i % 2 === 0 ? ['n'] : [] }))));
      expect(ids(await cp.listThreads({ status: 'done', limit: 2 }))).toEqual(['b', 'd']);
      expect(ids(await cp.listThreads({ status: 'done', after: 'd', limit: 2 }))).toEqual(['f', 'h']);
      expect(ids(await cp.listThreads({ status: 'running', after: 'a', limit: 10 }))).toEqual([
        'c',
        'e',
        'g',
      ]);
    });

    it('status follows the latest checkpoint of the thread', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { next: ['work'] }));
      await cp.put(checkpoint('t', 1, { interrupted: true, interruptNode: 'review', next: ['review'] }));
      expect(ids(await cp.listThreads({ status: 'interrupted' }))).toEqual(['t']);
      await cp.put(checkpoint('t', 2));
      expect(ids(await cp.listThreads({ status: 'interrupted' }))).toEqual([]);
      expect(ids(await cp.listThreads({ status: 'running' }))).toEqual([]);
      expect(ids(await cp.listThreads({ status: 'done' }))).toEqual(['t']);
    });

    it('ThreadInfo has exactly { thread, latestStep, interrupted, done, failed, error, ts } from the latest checkpoint', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 0, { next: ['work'], ts: at(0), state: { big: 'x'.repeat(10_000) } }));
      await cp.put(
        checkpoint('t', 1, { next: ['review'], interrupted: true, interruptNode: 'review', ts: at(1) }),
      );
      const [info] = await cp.listThreads();
      expect(Object.keys(info!).sort()).toEqual([
        'done',
        'error',
        'failed',
        'interrupted',
        'latestStep',
        'thread',
        'ts',
      ]);
      expect(info).toEqual({
        thread: 't',
        latestStep: 1,
        interrupted: true,
        done: false,
        failed: false,
        error: null,
        ts: at(1),
      });
    });

    it('latestStep stays the highest step after putting a lower step', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 5, { ts: at(5) }));
      await cp.put(checkpoint('t', 2, { next: ['work'], interrupted: true, ts: at(9) }));
      expect(await cp.listThreads()).toEqual([
        { thread: 't', latestStep: 5, interrupted: false, done: true, failed: false, error: null, ts: at(5) },
      ]);
    });

    it('the summary follows an overwrite of the latest step', async () => {
      const cp = await kit.create();
      await cp.put(checkpoint('t', 3, { next: ['work'], ts: at(1) }));
      await cp.put(checkpoint('t', 3, { ts: at(2) }));
      expect(await cp.listThreads()).toEqual([
        { thread: 't', latestStep: 3, interrupted: false, done: true, failed: false, error: null, ts: at(2) },
      ]);
    });

    it('the summary stays correct after prune and is gone after deleteThread', async () => {
      const cp = await kit.create();
      await putSteps(cp, 't', [0, 1, 2], { ts: at(0), next: ['n'] });
      await cp.put(checkpoint('t', 3, { ts: at(3), interrupted: true, interruptNode: 'x' }));
      await cp.put(checkpoint('u', 0, { ts: at(4) }));
      const summary = {
        thread: 't',
        latestStep: 3,
        interrupted: true,
        done: false,
        failed: false,
        error: null,
        ts: at(3),
      };
      expect(await cp.prune('t', { beforeStep: 100 })).toBe(3);
      const infos = await cp.listThreads();
      expect(infos).toEqual([
        summary,
        { thread: 'u', latestStep: 0, interrupted: false, done: true, failed: false, error: null, ts: at(4) },
      ]);
      expect(await cp.deleteThread('t')).toBe(1);
      expect(ids(await cp.listThreads())).toEqual(['u']);
      expect(await cp.listThreads({ status: 'interrupted' })).toEqual([]);
    });
  },
};

/** Runs only the listThreads checks: `describeListThreads('mine', harness)`. */
export const describeListThreads = describerFor(listThreadsSuite);
