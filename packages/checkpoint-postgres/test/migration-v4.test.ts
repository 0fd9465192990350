import { Checkpoint, CorruptCheckpointError, type RunError, threadInfoOf } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointer } from '../src/index.js';
import { quoteIdent } from '../src/quote.js';
import { toPgTimestamp } from '../src/timestamp.js';
import { earlierReleaseStore } from './support/earlier-release.js';
import { freshSchemas, newPool, url } from './support/stores.js';

const freshSchema = freshSchemas();

/** Instants whose toISOString forms differ: four-digit years, year 0 (1 BC), signed six-digit years. */
const INSTANTS = [
  '2024-02-29T12:34:56.789Z',
  '1969-12-31T23:59:59.999Z',
  '0001-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '+010000-01-01T00:00:00.001Z',
  '+275760-09-13T00:00:00.000Z',
  '0000-01-01T00:00:00.000Z',
  '-000001-06-01T12:00:00.500Z',
  '-004713-11-24T00:00:00.000Z',
];

const ERROR: RunError = { node: 'fetch', message: 'it broke, "badly"' };

describe('migration 4 on a store of version 3', () => {
  it('writes every thread summary as threadSummaryOf would, so listings of old threads are unchanged', async () => {
    const schema = freshSchema();
    const s = quoteIdent(schema);
    const admin = newPool(1);
    await earlierReleaseStore(admin, s, 3);
    // One thread per instant and status, with its summary row as version 3 wrote it.
    const shapes = [
      { status: 'running', next: ['a'], interrupted: false, error: null },
      { status: 'interrupted', next: ['a'], interrupted: true, error: null },
      { status: 'done', next: [], interrupted: false, error: null },
      { status: 'failed', next: ['a'], interrupted: false, error: ERROR },
    ] as const;
    const expected = [];
    for (const [i, ts] of INSTANTS.entries()) {
      for (const shape of shapes) {
        const thread = `t${i}-${shape.status}`;
        const error = shape.error === null ? null : JSON.stringify(shape.error);
        await admin.query(
          `INSERT INTO ${s}.threads (thread, latest_step, interrupted, ts, next, error, status)
           VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [thread, i * 3, shape.interrupted, toPgTimestamp(ts), shape.next, error, shape.status],
        );
        expected.push(threadInfoOf({ thread, step: i * 3, ...shape, ts }));
      }
    }
    await admin.end();
    expected.sort((a, b) => (a.thread < b.thread ? -1 : 1));

    const cp = new PostgresCheckpointer(url, { schema });
    try {
      expect(await cp.listThreads()).toEqual(expected);
      expect(await cp.listThreads({ status: 'failed' })).toEqual(expected.filter((t) => t.failed));
      // A put after the migration keeps the summary up to date.
      await cp.put(new Checkpoint({ thread: 't0-running', step: 1, state: {}, next: [] }));
      const moved = (await cp.listThreads({ status: 'done' })).find((t) => t.thread === 't0-running');
      expect([moved?.latestStep, moved?.done]).toEqual([1, true]);
    } finally {
      await cp.close();
    }
  });
});

describe('a thread summary that cannot be read', () => {
  it('makes listThreads reject with CorruptCheckpointError naming the thread, never a made-up entry', async () => {
    const schema = freshSchema();
    const cp = new PostgresCheckpointer(url, { schema });
    const admin = newPool(1);
    try {
      await cp.put(new Checkpoint({ thread: 'odd', step: 0, state: {}, next: ['a'] }));
      await admin.query(`UPDATE ${quoteIdent(schema)}.threads SET info = '0 sleeping 2026'`);
      const failure = await cp.listThreads().catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CorruptCheckpointError);
      expect((failure as CorruptCheckpointError).location).toContain('thread "odd"');
    } finally {
      await admin.end();
      await cp.close();
    }
  });
});
