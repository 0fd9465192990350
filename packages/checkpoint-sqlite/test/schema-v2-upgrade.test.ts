import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpoint } from '@flow/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';

// fixtures/schema-v2.db was written by the code of schema version 2 (before chunks): three steps of "long",
// whose state holds 20, 21 and 22 messages of about 230 characters (each record stores the whole state), and
// one step of "small" with a write.
const FIXTURE = new URL('./fixtures/schema-v2.db', import.meta.url);

const messages = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'ai' : 'user', text: `message ${i} `.repeat(20) }));

describe('a database of schema version 2', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function copyOfFixture(): string {
    const dir = mkdtempSync(join(tmpdir(), 'flow-sqlite-v2-'));
    dirs.push(dir);
    const file = join(dir, 'flow.db');
    copyFileSync(FIXTURE, file);
    return file;
  }

  it('is migrated, its whole-state rows read as before, and later puts to the same thread mix with them', async () => {
    const file = copyOfFixture();
    const checkpointer = new SqliteCheckpointer(file);
    for (let step = 0; step < 3; step++) {
      expect((await checkpointer.get('long', step))?.state).toEqual({ messages: messages(20 + step), step });
    }
    expect(await checkpointer.get('small')).toMatchObject({ state: { n: 1, when: new Date(0) }, next: [] });
    expect(await checkpointer.getWrites('small', 0)).toEqual([{ node: 'a', key: 'k', value: 1 }]);
    // New steps on the old thread, then every step read back, by get and by list.
    for (let step = 3; step < 6; step++) {
      await checkpointer.put(
        new Checkpoint({
          thread: 'long',
          step,
          state: { messages: messages(20 + step), step },
          next: ['chat'],
        }),
      );
    }
    const listed = await checkpointer.list('long');
    expect(listed.map((c) => c.step)).toEqual([5, 4, 3, 2, 1, 0]);
    for (const c of listed) expect(c.state).toEqual({ messages: messages(20 + c.step), step: c.step });
    const db = new Database(file, { readonly: true });
    // The rows of version 2 have no refs (whole states). The first new put has no memo of the thread in this
    // instance, so it is stored whole too (and remembered); the ones after it are linear, sharing chunks.
    const linear = db.prepare(
      'SELECT step, refs IS NOT NULL FROM flow_checkpoints WHERE thread = ? ORDER BY step',
    );
    expect(linear.raw().all('long')).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 1],
      [5, 1],
    ]);
    db.close();
    // Prune the old rows away: the new ones still read exactly.
    expect(await checkpointer.prune('long', { beforeStep: 4 })).toBe(4);
    const again = new SqliteCheckpointer(file);
    for (const step of [4, 5]) {
      expect((await again.get('long', step))?.state).toEqual({ messages: messages(20 + step), step });
    }
    await again.close();
    await checkpointer.close();
    const after = new Database(file, { readonly: true });
    expect(after.prepare('SELECT version FROM flow_migrations ORDER BY version').pluck().all()).toEqual([
      1, 2, 3, 4,
    ]);
    after.close();
  });
});
