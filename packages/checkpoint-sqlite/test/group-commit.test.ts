import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Checkpoint, CheckpointConflict, StorageError } from '@flow/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { rawDb, tempDbPath } from './support/databases.js';

const CHILD = fileURLToPath(new URL('./fixtures/acked-child.mjs', import.meta.url));
const RUNS = 32;

const cp = (thread: string, step = 0, state: unknown = { thread }) =>
  new Checkpoint({ thread, step, state, next: ['n'] });

/** An open checkpointer on a fresh file, and a second connection that watches its WAL. */
async function open(path = tempDbPath()) {
  const checkpointer = new SqliteCheckpointer(path);
  await checkpointer.setup();
  const watcher = rawDb(path);
  return {
    path,
    checkpointer,
    /** Empties the WAL, so `frames()` counts what is written after. */
    resetWal: () => watcher.pragma('wal_checkpoint(TRUNCATE)'),
    /** Frames in the WAL: every commit appends the pages it changed, once per commit. */
    frames: () => (watcher.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0]!.log,
  };
}

/** A new checkpointer on the same file: what is stored, as another process would read it. */
async function reopened(path: string) {
  const fresh = new SqliteCheckpointer(path);
  const threads = (await fresh.listThreads()).map((t) => t.thread);
  return { fresh, threads };
}

describe('group commit', () => {
  it(`${RUNS} puts issued together share one commit; the same puts one after another write a commit each`, async () => {
    const { checkpointer, resetWal, frames } = await open();
    await checkpointer.put(cp('warm-up'));
    resetWal();
    await Promise.all(Array.from({ length: RUNS }, (_, i) => checkpointer.put(cp(`together-${i}`))));
    // One commit writes each changed page once: a few pages for all of them, fewer frames than puts.
    const together = frames();
    expect(together).toBeLessThan(RUNS / 4);
    resetWal();
    for (let i = 0; i < RUNS; i++) await checkpointer.put(cp(`apart-${i}`));
    expect(frames()).toBeGreaterThanOrEqual(RUNS);
    await checkpointer.close();
  });

  it('puts from concurrent runs that reach their next put a few ticks apart still share commits', async () => {
    const { checkpointer, resetWal, frames } = await open();
    await checkpointer.put(cp('warm-up'));
    resetWal();
    const steps = 5;
    const run = async (i: number) => {
      for (let step = 0; step < steps; step++) {
        for (let t = 0; t < i % 4; t++) await Promise.resolve(); // runs unwind different await depths
        await checkpointer.put(cp(`run-${i}`, step));
      }
    };
    await Promise.all(Array.from({ length: RUNS }, (_, i) => run(i)));
    expect(frames()).toBeLessThan(RUNS * steps * 0.25);
    const { fresh, threads } = await reopened(checkpointer.filename);
    expect(threads.filter((t) => t.startsWith('run-'))).toHaveLength(RUNS);
    expect((await fresh.get('run-7'))?.step).toBe(steps - 1);
    await fresh.close();
    await checkpointer.close();
  });

  it('a conflicting conditional put in a group fails alone; the others commit', async () => {
    const { checkpointer, resetWal, frames } = await open();
    const first = await checkpointer.put(cp('held', 0, { v: 'first' }));
    resetWal();
    const results = await Promise.allSettled([
      ...Array.from({ length: 8 }, (_, i) => checkpointer.put(cp(`ok-${i}`))),
      checkpointer.put(cp('held', 0, { v: 'second' }), { ifRevision: 0 }),
      checkpointer.put(cp('held', 0, { v: 'third' }), { ifRevision: first.revision + 5 }),
      checkpointer.put(cp('new', 0), { ifRevision: 0 }),
    ]);
    expect(frames()).toBeLessThan(8); // one group
    expect(results.map((r) => r.status)).toEqual([
      ...Array(8).fill('fulfilled'),
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    for (const r of results.slice(8, 10))
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(CheckpointConflict);
    const { fresh, threads } = await reopened(checkpointer.filename);
    expect(threads).toEqual(['held', 'new', ...Array.from({ length: 8 }, (_, i) => `ok-${i}`)]);
    const held = await fresh.get('held', 0);
    expect(held?.state).toEqual({ v: 'first' });
    expect(held?.revision).toBe(first.revision);
    await fresh.close();
    await checkpointer.close();
  });

  it('a put that fails for another reason fails alone too, even one that rolls back the whole transaction', async () => {
    const { path, checkpointer } = await open();
    const db = rawDb(path);
    db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON flow_checkpoints WHEN NEW.thread = 'refused'
      BEGIN SELECT RAISE(ABORT, 'refused by a trigger'); END;
      CREATE TRIGGER doom BEFORE INSERT ON flow_checkpoints WHEN NEW.thread = 'doom'
      BEGIN SELECT RAISE(ROLLBACK, 'rolled back by a trigger'); END;`);
    const names = ['a', 'refused', 'b', 'doom', 'c'];
    const results = await Promise.allSettled(names.map((t) => checkpointer.put(cp(t))));
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    const reasons = [1, 3].map((i) => (results[i] as PromiseRejectedResult).reason);
    for (const reason of reasons) expect(reason).toBeInstanceOf(StorageError);
    expect(String(reasons[0].message)).toContain('refused by a trigger');
    expect(String(reasons[1].message)).toContain('rolled back by a trigger');
    const { fresh, threads } = await reopened(path);
    expect(threads).toEqual(['a', 'b', 'c']);
    await fresh.close();
    await checkpointer.close();
  });

  it('when the group cannot commit, each put runs again alone: the refused one rejects, the others are stored', async () => {
    const path = tempDbPath();
    const db = new Database(path);
    db.pragma('foreign_keys = ON');
    const checkpointer = new SqliteCheckpointer(db);
    await checkpointer.setup();
    // A deferred foreign key is checked at COMMIT: a put of 'doom' makes the COMMIT itself fail.
    db.exec(`CREATE TABLE parent (id TEXT PRIMARY KEY);
      CREATE TABLE child (p TEXT REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
      CREATE TRIGGER doom AFTER INSERT ON flow_checkpoints WHEN NEW.thread = 'doom'
      BEGIN INSERT INTO child VALUES ('missing'); END;`);
    const results = await Promise.allSettled(['a', 'doom', 'b'].map((t) => checkpointer.put(cp(t))));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const reason = (results[1] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(StorageError);
    expect(String(reason.message)).toContain('FOREIGN KEY');
    for (const r of [results[0], results[2]])
      expect((r as PromiseFulfilledResult<Checkpoint>).value.revision, 'stored once').toBe(1);
    expect((await checkpointer.listThreads()).map((t) => t.thread)).toEqual(['a', 'b']);
    // The connection is usable again afterwards.
    await checkpointer.put(cp('after'));
    expect((await checkpointer.listThreads()).map((t) => t.thread)).toEqual(['a', 'after', 'b']);
    await checkpointer.close();
    db.close();
  });

  it('operations issued after a put see it, in order, before its group would have flushed', async () => {
    const { checkpointer } = await open();
    const put = checkpointer.put(cp('ordered', 0, { v: 1 }));
    const removed = checkpointer.deleteThread('ordered');
    const [, count] = await Promise.all([put, removed]);
    expect(count).toBe(1);
    const again = checkpointer.put(cp('ordered', 1));
    expect((await checkpointer.get('ordered'))?.step).toBe(1);
    await again;
    const late = checkpointer.put(cp('at-close'));
    await checkpointer.close();
    await late;
    const { fresh, threads } = await reopened(checkpointer.filename);
    expect(threads).toContain('at-close');
    await fresh.close();
  });

  it('nothing is acknowledged before it is committed: a process SIGKILLed right after its puts resolved keeps them', {
    timeout: 30_000,
  }, async () => {
    const path = tempDbPath();
    const child = spawn(process.execPath, [CHILD, path, String(RUNS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('acked');
    child.kill('SIGKILL');
    await once(child, 'exit');
    const { fresh, threads } = await reopened(path);
    expect(threads).toHaveLength(RUNS);
    await fresh.close();
  });
});
