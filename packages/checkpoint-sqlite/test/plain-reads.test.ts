import { Checkpoint, type CheckpointInit } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { rawDb, tempDbPath } from './support/databases.js';

// Every column of a row must come back when it alone differs from its default (a read that skipped the
// columns most rows leave at their defaults was tried and reverted: an encrypted store's payload is never
// the default, so its gets read every row twice).
const steps: [string, Partial<CheckpointInit>][] = [
  ['nothing but the usual columns', {}],
  ['interrupted', { interrupted: true }],
  ['an interrupt node', { interruptNode: 'review' }],
  ['an interrupt payload', { interruptPayload: { question: 'ok?' } }],
  ['an error', { error: { node: 'work', message: 'boom' } }],
  ['meta', { meta: { stateVersion: 2 } }],
  // Past the size of a small state and put twice (step 0 too), so step 1 references step 0's chunks.
  ['chunk refs', { state: { log: Array.from({ length: 40 }, (_, i) => `line ${i} `.repeat(10)) } }],
];

describe('a read of a row that differs from the defaults in one column', () => {
  it.each(steps)(
    'answers every field of a row with %s, from get, get at a step and list',
    async (_, fields) => {
      const init = { thread: 't', state: { n: 1 }, next: ['work'], ...fields };
      const path = tempDbPath();
      const checkpointer = new SqliteCheckpointer(path);
      await checkpointer.put(
        new Checkpoint({ thread: 't', step: 0, state: fields.state ?? { n: 0 }, next: ['work'] }),
      );
      const stored = await checkpointer.put(new Checkpoint({ ...init, step: 1 }));
      const plain = (await checkpointer.get('t', 0))!.toJSON();
      const refs = rawDb(path)
        .prepare('SELECT refs IS NOT NULL FROM flow_checkpoints WHERE step = 1')
        .pluck();
      expect(refs.get()).toBe('state' in fields ? 1 : 0);

      const expected = stored.toJSON();
      expect((await checkpointer.get('t'))?.toJSON()).toEqual(expected);
      expect((await checkpointer.get('t', 1))?.toJSON()).toEqual(expected);
      expect((await checkpointer.list('t')).map((cp) => cp.toJSON())).toEqual([expected, plain]);
      expect((await checkpointer.list('t', { beforeStep: 1 })).map((cp) => cp.toJSON())).toEqual([plain]);
      await checkpointer.close();
    },
  );
});
