import { Checkpoint, compareThreadIds } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { checkpointer, plainClient } from './support/stores.js';

/** Ids built from glob, hash-tag, ZRANGEBYLEX and key-layout syntax, and ids that prefix one another. */
const IDS = [
  '*',
  '?',
  '[a-z]',
  'a*',
  'ab',
  'a?',
  'a',
  '\\*',
  '{tag}',
  '{',
  '}',
  'x|y',
  'x',
  ':cp|x',
  'cp|x',
  'all',
  'done',
  '(',
  '((x',
  '[',
  '-',
  '+',
  'a:b',
  ' ',
  'emoji 🧪',
  'ﬀ',
  '\uffff',
];

const state = (thread: string) => ({ owner: thread });

describe('hostile thread ids', () => {
  it('stores each id under its own literal keys', async () => {
    const cp = checkpointer();
    for (const id of IDS)
      await cp.put(new Checkpoint({ thread: id, step: 0, state: state(id), next: ['n'] }));
    for (const id of IDS) expect((await cp.get(id))?.state).toEqual(state(id));
    const admin = plainClient();
    for (const id of ['*', 'a*', '[a-z]', '{tag}', 'x|y']) {
      expect(await admin.exists(`${cp.prefix}:cp|${id}`)).toBe(1);
    }
  });

  it('lists and pages them in code-point order, with range syntax as `after`', async () => {
    const cp = checkpointer();
    for (const id of IDS) await cp.put(new Checkpoint({ thread: id, step: 0, state: 0 }));
    const sorted = [...IDS].sort(compareThreadIds);
    expect((await cp.listThreads()).map((t) => t.thread)).toEqual(sorted);
    for (const after of ['(', '[', '-', '+', '*', '((x']) {
      const expected = sorted.filter((id) => compareThreadIds(id, after) > 0);
      expect((await cp.listThreads({ after })).map((t) => t.thread)).toEqual(expected);
    }
    const paged: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await cp.listThreads({ after, limit: 4 });
      if (page.length === 0) break;
      paged.push(...page.map((t) => t.thread));
      after = page.at(-1)!.thread;
    }
    expect(paged).toEqual(sorted);
  });

  it('deletes and prunes only the exact id, never what a pattern would match', async () => {
    const cp = checkpointer();
    for (const id of IDS) {
      await cp.put(new Checkpoint({ thread: id, step: 0, state: 0, next: ['n'] }));
      await cp.put(new Checkpoint({ thread: id, step: 1, state: 1, next: ['n'] }));
    }
    expect(await cp.deleteThread('*')).toBe(2);
    expect(await cp.deleteThread('a?')).toBe(2);
    expect(await cp.prune('[a-z]', { beforeStep: 1 })).toBe(1);
    for (const id of IDS) {
      const expected = id === '*' || id === 'a?' ? 0 : id === '[a-z]' ? 1 : 2;
      expect(await cp.list(id)).toHaveLength(expected);
    }
    expect((await cp.listThreads()).map((t) => t.thread)).not.toContain('*');
  });
});
