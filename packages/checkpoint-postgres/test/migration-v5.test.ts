import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { earlierReleaseStore } from './support/earlier-release.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();

describe('migration 5 on a store of version 4', () => {
  it('keeps every checkpoint as a whole state, and the thread grows with new puts, prunes and all', async () => {
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const admin = newPool(1);
    // A store exactly as version 4 left it, with a thread of two steps.
    await earlierReleaseStore(admin, s, 4);
    const ts = '2026-01-01T00:00:00.000Z';
    const old = [
      { n: 0, log: ['a'] },
      { n: 1, log: ['a', 'b'] },
    ];
    for (const [step, state] of old.entries()) {
      await admin.query(
        `INSERT INTO ${s}.checkpoints (thread, step, revision, state, next, interrupted, interrupt_payload, ts)
         VALUES ('t', $1, 1, $2, '{work}', false, 'null', $3)`,
        [step, JSON.stringify(state), ts],
      );
    }
    await admin.query(`INSERT INTO ${s}.threads VALUES ('t', 1, false, $1, '{work}', null, 'running', $2)`, [
      ts,
      `1 running ${ts}`,
    ]);

    const cp = new PostgresCheckpointer(url, { schema });
    try {
      expect((await cp.list('t')).map((c) => c.state)).toEqual([...old].reverse());
      const { rows } = await admin.query(`SELECT step, refs FROM ${s}.checkpoints ORDER BY step`);
      expect(rows).toEqual([
        { step: 0, refs: null },
        { step: 1, refs: null },
      ]);
      // New steps of the same thread, small and large, next to the old ones.
      const log = Array.from({ length: 300 }, (_, i) => ({ i, text: `entry ${i} `.repeat(8) }));
      const grown = [
        { n: 2, log: [...old[1]!.log, 'c'] },
        { n: 3, log },
        { n: 4, log: [...log, { i: 300, text: 'last' }] },
      ];
      for (const [i, state] of grown.entries()) {
        await cp.put(new Checkpoint({ thread: 't', step: i + 2, state, next: ['work'] }));
      }
      expect((await cp.list('t')).map((c) => c.state)).toEqual([...old, ...grown].reverse());
      expect(await cp.prune('t', { beforeStep: 4 })).toBe(4);
      expect((await cp.list('t')).map((c) => c.state)).toEqual([grown[2]]);
      expect((await cp.listThreads()).map((t) => [t.thread, t.latestStep])).toEqual([['t', 4]]);
    } finally {
      await cp.close();
      await admin.end();
    }
  });
});
