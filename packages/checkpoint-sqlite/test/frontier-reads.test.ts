import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { rawDb, tempDbPath } from './support/databases.js';

// Reads keep the last frontier parsed (rows.ts): each read must still answer its own row's frontier.
describe('the frontier of a read', () => {
  it('is the stored one, frozen, whichever frontier was read before', async () => {
    const path = tempDbPath();
    const checkpointer = new SqliteCheckpointer(path);
    const frontiers = [['a'], ['b', 'c'], [], ['a'], ['c', 'b']];
    for (const [step, next] of frontiers.entries()) {
      await checkpointer.put(new Checkpoint({ thread: 't', step, state: step, next }));
    }
    for (const step of [0, 1, 1, 2, 3, 4, 0, 2, 4]) {
      const cp = await checkpointer.get('t', step);
      expect(cp?.next).toEqual(frontiers[step]);
      expect(Object.isFrozen(cp?.next)).toBe(true);
    }
    expect((await checkpointer.list('t')).map((cp) => cp.next)).toEqual(frontiers.toReversed());
    // Puts keep the last frontier's text too (rows.ts): each row holds its own.
    const stored = rawDb(path).prepare('SELECT next FROM flow_checkpoints ORDER BY step').pluck().all();
    expect(stored).toEqual(frontiers.map((next) => JSON.stringify(next)));

    // A row edited to the text just read reads as that frontier; the last one read is not kept for others.
    rawDb(path).exec(`UPDATE flow_checkpoints SET next = '["c","b"]' WHERE thread = 't' AND step = 0`);
    expect((await checkpointer.get('t', 0))?.next).toEqual(['c', 'b']);
    expect((await checkpointer.get('t', 1))?.next).toEqual(['b', 'c']);
    await checkpointer.close();
  });
});
