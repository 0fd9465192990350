import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { earlierReleaseStore } from './support/earlier-release.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();

describe('migration 3 on a store of version 2', () => {
  it('keeps every error and meta written as JSONB, then stores a run error holding U+0000', async () => {
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const admin = newPool(1);
    // A store exactly as version 2 left it, with one failed thread.
    await earlierReleaseStore(admin, s, 2);
    const ts = '2026-01-01T00:00:00.000Z';
    const error = { node: 'fetch', message: 'boom' };
    await admin.query(
      `INSERT INTO ${s}.checkpoints VALUES ('broke', 0, 1, '{"n": 0}', '{fetch}', false, null, 'null', $1, $2, $3)`,
      [ts, JSON.stringify(error), JSON.stringify({ stateVersion: 2 })],
    );
    await admin.query(
      `INSERT INTO ${s}.checkpoints (thread, step, revision, state, next, interrupted,
      interrupt_payload, ts) VALUES ('plain', 0, 1, '{}', '{a}', false, 'null', $1)`,
      [ts],
    );
    await admin.query(
      `INSERT INTO ${s}.threads VALUES ('broke', 0, false, $1, '{fetch}', $2, 'failed'),
         ('plain', 0, false, $1, '{a}', null, 'running')`,
      [ts, JSON.stringify(error)],
    );
    await admin.end();

    const cp = new PostgresCheckpointer(url, { schema });
    try {
      expect(await cp.listThreads({ status: 'failed' })).toEqual([
        { thread: 'broke', latestStep: 0, interrupted: false, done: false, failed: true, error, ts },
      ]);
      const broke = await cp.get('broke');
      expect([broke?.error, broke?.meta]).toEqual([error, { stateVersion: 2 }]);
      const plain = await cp.get('plain');
      expect([plain?.error, plain?.meta]).toEqual([null, {}]);

      const nul = { node: null, message: 'bad byte \u0000 here' };
      await cp.put(
        new Checkpoint({
          thread: 'plain',
          step: 1,
          state: {},
          next: ['a'],
          error: nul,
          meta: { note: '\u0000' },
        }),
      );
      const stored = await cp.get('plain');
      expect([stored?.error, stored?.meta]).toEqual([nul, { note: '\u0000' }]);
      expect((await cp.listThreads({ status: 'failed' })).map((t) => [t.thread, t.error])).toEqual([
        ['broke', error],
        ['plain', nul],
      ]);
    } finally {
      await cp.close();
    }
  });
});
