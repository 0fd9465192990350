import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpoint } from '@flow/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';

// fixtures/schema-v1.db was written by the released code path of schema version 1 (before error, meta,
// writes and leases): two steps of "running", an interrupted "asked", a finished "finished".
const FIXTURE = new URL('./fixtures/schema-v1.db', import.meta.url);

describe('a database of schema version 1', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function copyOfFixture(): string {
    const dir = mkdtempSync(join(tmpdir(), 'flow-sqlite-v1-'));
    dirs.push(dir);
    const file = join(dir, 'flow.db');
    copyFileSync(FIXTURE, file);
    return file;
  }

  it('is migrated to the current version and its records read as before, with error null and meta {}', async () => {
    const file = copyOfFixture();
    const checkpointer = new SqliteCheckpointer(file);
    const running = await checkpointer.get('running');
    expect(running).toMatchObject({
      step: 1,
      state: { n: 1 },
      next: ['work'],
      revision: 1,
      error: null,
      meta: {},
    });
    expect((await checkpointer.get('running', 0))?.state).toEqual({ n: 0, when: new Date(0) });
    expect(await checkpointer.get('asked')).toMatchObject({
      interrupted: true,
      interruptPayload: 'ok?',
      error: null,
    });
    expect(await checkpointer.listThreads()).toEqual([
      {
        thread: 'asked',
        latestStep: 0,
        interrupted: true,
        done: false,
        failed: false,
        error: null,
        ts: '2026-01-01T00:00:02.000Z',
      },
      {
        thread: 'finished',
        latestStep: 3,
        interrupted: false,
        done: true,
        failed: false,
        error: null,
        ts: '2026-01-01T00:00:03.000Z',
      },
      {
        thread: 'running',
        latestStep: 1,
        interrupted: false,
        done: false,
        failed: false,
        error: null,
        ts: '2026-01-01T00:00:01.000Z',
      },
    ]);
    expect((await checkpointer.listThreads({ status: 'running' })).map((i) => i.thread)).toEqual(['running']);
    // The new tables work on the migrated file.
    await checkpointer.put(
      new Checkpoint({
        thread: 'running',
        step: 2,
        state: 2,
        next: ['work'],
        error: { node: 'work', message: 'x' },
      }),
      { writes: [{ node: 'work', key: 'k', value: 1 }] },
    );
    expect(await checkpointer.getWrites('running', 2)).toEqual([{ node: 'work', key: 'k', value: 1 }]);
    expect((await checkpointer.listThreads({ status: 'failed' })).map((i) => i.thread)).toEqual(['running']);
    expect(await checkpointer.acquireLease('running', { owner: 'me', ttlMs: 1000 })).toMatchObject({
      owner: 'me',
    });
    await checkpointer.close();
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT version FROM flow_migrations ORDER BY version').pluck().all()).toEqual([
      1, 2, 3, 4,
    ]);
    // The version table of the first release had no names: its row keeps an empty one, the new row has its own.
    expect(db.prepare('SELECT version, name FROM flow_migrations ORDER BY version').raw().all()).toEqual([
      [1, ''],
      [2, 'failed runs, meta, per-step writes and leases'],
      [3, 'chunks and refs of linear state'],
      [4, 'thread summary kept by triggers'],
    ]);
    db.close();
  });
});
