import { Checkpoint } from '@flow/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { recordingDb } from './support/databases.js';

describe('prepared statements', () => {
  it('are prepared once at setup and reused: puts, gets, lists and deletes prepare nothing new', async () => {
    const db = recordingDb(new Database(':memory:'));
    const checkpointer = new SqliteCheckpointer(db);
    await checkpointer.setup();
    const atSetup = db.prepared.length;
    for (let i = 0; i < 20; i++) {
      const thread = `t${i % 3}`;
      await checkpointer.put(new Checkpoint({ thread, step: i, state: { i } }));
      await checkpointer.put(new Checkpoint({ thread, step: i, state: { i } }), { ifRevision: 1 });
      await checkpointer
        .put(new Checkpoint({ thread, step: i, state: { i } }), { ifRevision: 0 })
        .catch(() => {});
      await checkpointer.get(thread);
      await checkpointer.get(thread, i);
      await checkpointer.list(thread, { limit: 2, beforeStep: i });
      await checkpointer.listThreads({ status: 'done', after: 't0', limit: 5 });
      await checkpointer.listThreads();
      await checkpointer.prune(thread, { beforeStep: i, olderThan: new Date() });
    }
    await checkpointer.deleteThread('t1');
    expect(db.prepared.length).toBe(atSetup);
    await checkpointer.close();
    db.close();
  });

  it('a put is one statement, committed on its own: no BEGIN/COMMIT, no read, no summary statement', async () => {
    const statements: string[] = [];
    // better-sqlite3's `verbose` hook sees every statement the checkpointer runs (not what triggers run).
    const traced = new Database(':memory:', { verbose: (sql) => statements.push(String(sql)) });
    const tracing = new SqliteCheckpointer(traced);
    await tracing.setup();
    const kinds = () => statements.splice(0).map((sql) => sql.trim().split(/\s+/).slice(0, 2).join(' '));
    kinds();
    await tracing.put(new Checkpoint({ thread: 't', step: 0, state: 1 }));
    await tracing.put(new Checkpoint({ thread: 't', step: 0, state: 2 }), { ifRevision: 1 });
    await tracing.put(new Checkpoint({ thread: 't', step: 1, state: 3 }), { ifRevision: 0 });
    expect(kinds()).toEqual(['INSERT INTO', 'UPDATE flow_checkpoints', 'INSERT INTO']);
    // An unconditional put of a stored step: the insert changes nothing, the upsert bumps the revision.
    expect((await tracing.put(new Checkpoint({ thread: 't', step: 1, state: 5 }))).revision).toBe(2);
    expect(kinds()).toEqual(['INSERT INTO', 'INSERT INTO']);
    // A conflict is answered in a transaction of its own, which reads the revision that conflicted.
    await expect(
      tracing.put(new Checkpoint({ thread: 't', step: 1, state: 4 }), { ifRevision: 0 }),
    ).rejects.toMatchObject({ expected: 0, actual: 2 });
    expect(kinds()).toEqual(['INSERT INTO', 'BEGIN IMMEDIATE', 'INSERT INTO', 'SELECT revision', 'ROLLBACK']);
    await tracing.close();
    traced.close();
  });
});
