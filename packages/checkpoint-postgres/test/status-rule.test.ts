import { Checkpoint, type RunError, statusOf, THREAD_STATUSES, threadInfoOf } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { freshCheckpointer, freshSchemas } from './support/stores.js';

const freshSchema = freshSchemas();
const cp = freshCheckpointer(freshSchema());
afterAll(() => cp.close());

/** Every combination of the fields the status depends on. */
const COMBINATIONS = [[], ['a']].flatMap((next) =>
  [false, true].flatMap((interrupted) =>
    [null, { node: 'a', message: 'it broke' } as RunError].map((error) => ({ next, interrupted, error })),
  ),
);

const at = (thread: string, step: number, fields: (typeof COMBINATIONS)[number]) =>
  new Checkpoint({ thread, step, state: {}, ...fields, interruptNode: fields.interrupted ? 'a' : null });

describe('the stored status agrees with core statusOf and threadInfoOf', () => {
  it('for every combination of next, interrupted and error, and every change from one to another', async () => {
    const expected = new Map<string, ReturnType<typeof threadInfoOf>>();
    for (const [i, before] of COMBINATIONS.entries()) {
      for (const [j, after] of COMBINATIONS.entries()) {
        const thread = `t${i}-${j}`;
        await cp.put(at(thread, 0, before));
        const latest = await cp.put(at(thread, 1, after));
        expected.set(thread, threadInfoOf({ thread, step: 1, ...after, ts: latest.ts }));
      }
    }
    const all = await cp.listThreads();
    expect(all).toEqual([...expected.keys()].sort().map((t) => expected.get(t)));
    for (const status of THREAD_STATUSES) {
      const listed = (await cp.listThreads({ status })).map((t) => t.thread);
      // The latest checkpoint of `t<i>-<j>` has the fields of combination j.
      const wanted = [...expected.keys()].filter(
        (thread) => statusOf(COMBINATIONS[Number(thread.split('-')[1])]!) === status,
      );
      expect(listed, status).toEqual(wanted.sort());
    }
  });
});
