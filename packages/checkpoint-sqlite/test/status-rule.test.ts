import { Checkpoint, statusOf, THREAD_STATUSES, type ThreadStatus } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';

// The SQL filters of listThreads (STATUS_FILTER in statements.ts) are a second form of core's statusOf:
// over every combination of the fields it depends on, they must put each thread where statusOf does.
describe('the SQL status filters', () => {
  it('agree with statusOf for every combination of next, interrupted and error', async () => {
    const checkpointer = new SqliteCheckpointer(':memory:');
    const expected = new Map<string, ThreadStatus>();
    for (const next of [[], ['work']]) {
      for (const interrupted of [false, true]) {
        for (const error of [
          null,
          { node: 'work', message: 'boom' },
          { node: null, message: 'step limit' },
        ]) {
          const thread = JSON.stringify({ next, interrupted, error });
          await checkpointer.put(new Checkpoint({ thread, step: 0, state: null, next, interrupted, error }));
          expected.set(thread, statusOf({ next, interrupted, error }));
        }
      }
    }
    for (const status of THREAD_STATUSES) {
      const listed = (await checkpointer.listThreads({ status })).map((i) => i.thread).sort();
      const wanted = [...expected]
        .filter(([, s]) => s === status)
        .map(([t]) => t)
        .sort();
      expect(listed, status).toEqual(wanted);
    }
    for (const info of await checkpointer.listThreads()) {
      const status = expected.get(info.thread);
      expect({ done: info.done, failed: info.failed }, info.thread).toEqual({
        done: status === 'done',
        failed: status === 'failed',
      });
    }
    await checkpointer.close();
  });
});
