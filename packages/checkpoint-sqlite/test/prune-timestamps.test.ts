import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { rawDb, tempDbPath } from './support/databases.js';

describe('prune({ olderThan })', () => {
  it('compares instants, not ISO text: years before 0 and after 9999 are placed correctly', async () => {
    const checkpointer = new SqliteCheckpointer(':memory:');
    const stamps = ['-000001-06-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z', '+010000-01-01T00:00:00.000Z'];
    for (const [step, ts] of stamps.entries()) {
      await checkpointer.put(new Checkpoint({ thread: 't', step, state: step, next: ['n'], ts }));
    }
    await checkpointer.put(
      new Checkpoint({ thread: 't', step: 3, state: 3, ts: '2000-01-01T00:00:00.000Z' }),
    );
    // As text, '+010000-…' sorts before '2025-…': a text comparison would prune step 2 as well.
    expect(await checkpointer.prune('t', { olderThan: '2025-01-01T00:00:00Z' })).toBe(2);
    expect((await checkpointer.list('t')).map((c) => [c.step, c.ts])).toEqual([
      [3, '2000-01-01T00:00:00.000Z'],
      [2, '+010000-01-01T00:00:00.000Z'],
    ]);
    await checkpointer.close();
  });

  it("stores a stamped put's instant beside its ts, as a given ts's", async () => {
    const path = tempDbPath();
    const checkpointer = new SqliteCheckpointer(path);
    // Stamped puts (ts from the clock) and given ones in turns: each row's instant is its own ts's.
    for (let step = 0; step < 6; step++) {
      const given = step % 2 === 0 ? {} : { ts: `20${10 + step}-01-01T00:00:00.000Z` };
      await checkpointer.put(new Checkpoint({ thread: 't', step, state: step, ...given }));
    }
    const rows = rawDb(path).prepare('SELECT ts, ts_ms FROM flow_checkpoints ORDER BY step').raw().all();
    expect(rows).toHaveLength(6);
    for (const [ts, ms] of rows as [string, number][]) expect(ms).toBe(Date.parse(ts));
    await checkpointer.close();
  });
});
