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

  it('a put is BEGIN IMMEDIATE, one write, the summary upsert, COMMIT: no read on the hot path', async () => {
    const statements: string[] = [];
    // better-sqlite3's `verbose` hook sees every statement SQLite runs.
    const traced = new Database(':memory:', { verbose: (sql) => statements.push(String(sql)) });
    const tracing = new SqliteCheckpointer(traced);
    await tracing.setup();
    statements.length = 0;
    await tracing.put(new Checkpoint({ thread: 't', step: 0, state: 1 }));
    await tracing.put(new Checkpoint({ thread: 't', step: 0, state: 2 }), { ifRevision: 1 });
    const kinds = statements.map((sql) => sql.trim().split(/\s+/)[0]);
    expect(kinds).toEqual(['BEGIN', 'INSERT', 'INSERT', 'COMMIT', 'BEGIN', 'UPDATE', 'INSERT', 'COMMIT']);
    expect(statements[0]).toMatch(/^BEGIN IMMEDIATE/);
    await tracing.close();
    traced.close();
  });
});
