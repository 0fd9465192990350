import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { MysqlCheckpointer } from '../src/index.js';
import { freshStore, url } from './support/stores.js';

describe('concurrency', () => {
  it('racing puts of many steps and deleteThread leave no checkpoint without its summary', async () => {
    const store = freshStore();
    const other = new MysqlCheckpointer(url, { tablePrefix: store.tablePrefix });
    try {
      for (let round = 0; round < 5; round++) {
        const puts = Array.from({ length: 12 }, (_, step) =>
          (step % 2 ? store : other).put(new Checkpoint({ thread: 't', step, state: { round } })),
        );
        const deletes = [store.deleteThread('t'), other.deleteThread('t')];
        await Promise.all([...puts, ...deletes]);
        const steps = (await store.list('t')).map((c) => c.step);
        const summary = await store.listThreads();
        if (steps.length === 0) expect(summary).toEqual([]);
        else expect(summary.map((t) => [t.thread, t.latestStep])).toEqual([['t', Math.max(...steps)]]);
        await store.deleteThread('t');
      }
    } finally {
      await other.close();
    }
  });

  it('counts every one of many concurrent unconditional puts to one step', async () => {
    const store = freshStore();
    const other = new MysqlCheckpointer(url, { tablePrefix: store.tablePrefix });
    try {
      const writes = Array.from({ length: 30 }, (_, i) =>
        (i % 2 ? store : other).put(new Checkpoint({ thread: 't', step: 0, state: i })),
      );
      const revisions = (await Promise.all(writes)).map((c) => c.revision).sort((a, b) => a - b);
      expect(revisions).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect((await store.get('t'))?.revision).toBe(30);
    } finally {
      await other.close();
    }
  });
});
