import { Checkpoint, type CheckpointInit, isFlowError } from '@flow/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { SQL } from '../src/statements.js';

function setupDb() {
  const db = new Database(':memory:');
  return { db, checkpointer: new SqliteCheckpointer(db) };
}

const cp = (init: Omit<CheckpointInit, 'state'> & { state?: unknown }) =>
  new Checkpoint({ state: { big: 'x'.repeat(1000) }, ...init });

function plan(db: Database.Database, sql: string): string[] {
  // The listing binds by position: (after, limit).
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('', -1) as { detail: string }[]).map((r) => r.detail);
}

describe('thread summary (flow_threads)', () => {
  it('listThreads reads only the summary table, on an index, with no sort step', async () => {
    const { db, checkpointer } = setupDb();
    await checkpointer.setup();
    for (const [status, sql] of Object.entries(SQL.threads)) {
      const steps = plan(db, sql);
      expect(steps, status).toHaveLength(1);
      expect(steps[0], status).toMatch(
        /^SEARCH flow_threads USING (PRIMARY KEY|INDEX flow_threads_interrupted)/,
      );
      expect(sql, status).not.toMatch(/flow_checkpoints|state/);
    }
    expect(plan(db, SQL.threads.interrupted)[0]).toContain('flow_threads_interrupted');
    db.close();
  });

  it('listThreads answers from the summary even when every state is unreadable or gone', async () => {
    const { db, checkpointer } = setupDb();
    await checkpointer.put(cp({ thread: 'a', step: 0, next: ['n'] }));
    await checkpointer.put(cp({ thread: 'b', step: 3, interrupted: true, interruptNode: 'review' }));
    await checkpointer.put(cp({ thread: 'c', step: 1 }));
    db.exec("UPDATE flow_checkpoints SET state = 'not json'");
    await expect(checkpointer.get('a')).rejects.toSatisfy((e) => isFlowError(e, 'CORRUPT_CHECKPOINT'));
    const before = await checkpointer.listThreads();
    db.exec('DELETE FROM flow_checkpoints');
    const after = await checkpointer.listThreads();
    expect(after).toEqual(before);
    expect(after.map(({ ts: _ts, ...rest }) => rest)).toEqual([
      { thread: 'a', latestStep: 0, interrupted: false, done: false, failed: false, error: null },
      { thread: 'b', latestStep: 3, interrupted: true, done: false, failed: false, error: null },
      { thread: 'c', latestStep: 1, interrupted: false, done: true, failed: false, error: null },
    ]);
    db.close();
  });

  it('follows the highest step: a write to an older step leaves the summary alone', async () => {
    const { db, checkpointer } = setupDb();
    await checkpointer.put(cp({ thread: 't', step: 0, next: ['a'] }));
    const latest = await checkpointer.put(
      cp({ thread: 't', step: 2, interrupted: true, interruptNode: 'a' }),
    );
    await checkpointer.put(cp({ thread: 't', step: 1 })); // done, but not the latest
    expect(await checkpointer.listThreads()).toEqual([
      {
        thread: 't',
        latestStep: 2,
        interrupted: true,
        done: false,
        failed: false,
        error: null,
        ts: latest.ts,
      },
    ]);
    const rewritten = await checkpointer.put(cp({ thread: 't', step: 2, ts: '2030-01-01T00:00:00.000Z' }));
    expect(await checkpointer.listThreads({ status: 'done' })).toEqual([
      {
        thread: 't',
        latestStep: 2,
        interrupted: false,
        done: true,
        failed: false,
        error: null,
        ts: rewritten.ts,
      },
    ]);
    expect(await checkpointer.listThreads({ status: 'interrupted' })).toEqual([]);
    db.close();
  });

  it('is kept by prune and dropped by deleteThread', async () => {
    const { db, checkpointer } = setupDb();
    for (let step = 0; step < 5; step++) await checkpointer.put(cp({ thread: 't', step, next: ['a'] }));
    await checkpointer.put(cp({ thread: 'u', step: 0 }));
    expect(await checkpointer.prune('t', { beforeStep: 10 })).toBe(4);
    expect((await checkpointer.listThreads()).map((t) => [t.thread, t.latestStep])).toEqual([
      ['t', 4],
      ['u', 0],
    ]);
    expect(await checkpointer.deleteThread('t')).toBe(1);
    expect((await checkpointer.listThreads()).map((t) => t.thread)).toEqual(['u']);
    expect(db.prepare('SELECT thread FROM flow_threads').all()).toEqual([{ thread: 'u' }]);
    db.close();
  });

  it('is written in the same transaction as the checkpoint: a failed summary write leaves nothing behind', async () => {
    const { db, checkpointer } = setupDb();
    await checkpointer.put(cp({ thread: 't', step: 0, next: ['a'] }));
    db.exec(`CREATE TRIGGER fail_summary BEFORE UPDATE ON flow_threads
      BEGIN SELECT RAISE(ABORT, 'summary write failed'); END`);
    const error = await checkpointer.put(cp({ thread: 't', step: 1 })).catch((e: unknown) => e);
    expect(isFlowError(error, 'STORAGE')).toBe(true);
    expect((error as Error).message).toContain('summary write failed');
    expect(await checkpointer.get('t', 1)).toBeUndefined();
    expect(await checkpointer.list('t')).toHaveLength(1);
    db.close();
  });

  it('a conflicting conditional put changes neither the checkpoint nor the summary', async () => {
    const { db, checkpointer } = setupDb();
    const stored = await checkpointer.put(cp({ thread: 't', step: 0, next: ['a'] }));
    const before = await checkpointer.listThreads();
    const error = await checkpointer
      .put(cp({ thread: 't', step: 0, interrupted: true }), { ifRevision: 5 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'CHECKPOINT_CONFLICT', expected: 5, actual: 1 });
    expect(await checkpointer.listThreads()).toEqual(before);
    expect(await checkpointer.get('t')).toEqual(stored);
    db.close();
  });
});
