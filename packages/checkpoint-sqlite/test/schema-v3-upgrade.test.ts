import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpoint } from '@flow/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';

// fixtures/schema-v3.db was written by the code of schema version 3 (the summary kept by a statement of each
// put): "long", three steps of 20, 21 and 22 messages of about 230 characters (step 0 whole, steps 1 and 2
// linear); "waiting", step 1 interrupted at "review"; "failed", step 2 failed at "work"; "finished", steps 0
// and 1 (done, with a write at step 1).
const FIXTURE = new URL('./fixtures/schema-v3.db', import.meta.url);

const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'ai' : 'user', text: `message ${i} `.repeat(20) }));

const summary = async (checkpointer: SqliteCheckpointer, status?: 'interrupted' | 'failed' | 'done') =>
  (await checkpointer.listThreads(status && { status })).map((t) => [t.thread, t.latestStep]);

describe('a database of schema version 3', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function copyOfFixture(): string {
    const dir = mkdtempSync(join(tmpdir(), 'flow-sqlite-v3-'));
    dirs.push(dir);
    const file = join(dir, 'flow.db');
    copyFileSync(FIXTURE, file);
    return file;
  }

  it('is migrated, reads as before, and its summary follows the puts made after the upgrade', async () => {
    const file = copyOfFixture();
    const checkpointer = new SqliteCheckpointer(file);
    for (let step = 0; step < 3; step++) {
      expect((await checkpointer.get('long', step))?.state).toEqual({ messages: messages(20 + step), step });
    }
    expect(await checkpointer.get('finished')).toMatchObject({
      state: { n: 1, when: new Date(0) },
      next: [],
    });
    expect(await checkpointer.getWrites('finished', 1)).toEqual([{ node: 'a', key: 'k', value: 1 }]);
    expect(await summary(checkpointer)).toEqual([
      ['failed', 2],
      ['finished', 1],
      ['long', 2],
      ['waiting', 1],
    ]);
    expect(await summary(checkpointer, 'interrupted')).toEqual([['waiting', 1]]);
    expect(await summary(checkpointer, 'failed')).toEqual([['failed', 2]]);
    expect(await summary(checkpointer, 'done')).toEqual([['finished', 1]]);

    // A new step of each kind on the old threads moves their summary rows, kept by the triggers now.
    await checkpointer.put(
      new Checkpoint({ thread: 'long', step: 3, state: { messages: messages(23), step: 3 }, next: [] }),
      { ifRevision: 0 },
    );
    await checkpointer.put(new Checkpoint({ thread: 'failed', step: 3, state: {}, next: ['work'] }));
    const waiting = await checkpointer.get('waiting');
    await checkpointer.put(waiting!.with({ interrupted: false, interruptNode: null, next: [] }), {
      ifRevision: waiting!.revision,
    });
    // A write to an older step leaves the summary where it is.
    await checkpointer.put(new Checkpoint({ thread: 'finished', step: 0, state: {}, next: ['a'] }));
    expect(await summary(checkpointer, 'done')).toEqual([
      ['finished', 1],
      ['long', 3],
      ['waiting', 1],
    ]);
    expect(await summary(checkpointer, 'interrupted')).toEqual([]);
    expect(await summary(checkpointer, 'failed')).toEqual([]);
    expect(await summary(checkpointer)).toEqual([
      ['failed', 3],
      ['finished', 1],
      ['long', 3],
      ['waiting', 1],
    ]);
    expect((await checkpointer.get('long'))?.state).toEqual({ messages: messages(23), step: 3 });
    await checkpointer.close();
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT version FROM flow_migrations ORDER BY version').pluck().all()).toEqual([
      1, 2, 3, 4,
    ]);
    db.close();
  });
});
