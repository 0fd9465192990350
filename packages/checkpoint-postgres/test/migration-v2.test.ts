import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { earlierReleaseStore } from './support/earlier-release.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();

describe('migration 2 on a store of version 1', () => {
  it('keeps every checkpoint and summary, reading old rows with no error and empty meta', async () => {
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const admin = newPool(1);
    // A store exactly as version 1 left it.
    await earlierReleaseStore(admin, s, 1);
    const ts = '2026-01-01T00:00:00.000Z';
    for (const [thread, next, interrupted] of [
      ['run', ['a'], false],
      ['end', [], false],
      ['ask', ['b'], true],
    ] as const) {
      await admin.query(
        `INSERT INTO ${s}.checkpoints VALUES ($1, 0, 1, '{"n": 0}', $2, $3, $4, 'null', $5)`,
        [thread, next, interrupted, interrupted ? 'b' : null, ts],
      );
      await admin.query(`INSERT INTO ${s}.threads VALUES ($1, 0, $2, $3, $4)`, [
        thread,
        interrupted,
        next.length === 0 && !interrupted,
        ts,
      ]);
    }
    await admin.end();

    const cp = new PostgresCheckpointer(url, { schema });
    try {
      const threads = await cp.listThreads();
      expect(threads).toEqual([
        { thread: 'ask', latestStep: 0, interrupted: true, done: false, failed: false, error: null, ts },
        { thread: 'end', latestStep: 0, interrupted: false, done: true, failed: false, error: null, ts },
        { thread: 'run', latestStep: 0, interrupted: false, done: false, failed: false, error: null, ts },
      ]);
      for (const status of ['running', 'interrupted', 'done', 'failed'] as const) {
        const listed = (await cp.listThreads({ status })).map((t) => t.thread);
        expect(listed, status).toEqual(
          { running: ['run'], interrupted: ['ask'], done: ['end'], failed: [] }[status],
        );
      }
      const run = await cp.get('run');
      expect([run?.state, run?.next, run?.error, run?.meta]).toEqual([{ n: 0 }, ['a'], null, {}]);
      await cp.putWrites('run', 0, [{ node: 'a', key: 'k', value: 1 }]);
      expect(await cp.getWrites('run', 0)).toEqual([{ node: 'a', key: 'k', value: 1 }]);
    } finally {
      await cp.close();
    }
  });
});
