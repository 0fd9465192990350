import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Checkpoint, isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { rawDb, tempDbPath } from './support/databases.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const cp = (step: number) => new Checkpoint({ thread: 't', step, state: { step } });

describe('busy timeout', () => {
  it('a put waits for another process to release the write lock, then commits', {
    timeout: 30_000,
  }, async () => {
    const path = tempDbPath();
    const checkpointer = new SqliteCheckpointer(path);
    await checkpointer.setup();
    // Another process takes the write lock and holds it for 400 ms.
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import Database from 'better-sqlite3';
         const db = new Database(process.argv[1]);
         db.exec('BEGIN IMMEDIATE');
         console.log('locked');
         setTimeout(() => { db.exec('COMMIT'); db.close(); }, 400);`,
        path,
      ],
      { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: holder.stdout! })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('locked');
    const started = performance.now();
    const stored = await checkpointer.put(cp(0));
    expect(performance.now() - started).toBeGreaterThan(150);
    expect(stored.revision).toBe(1);
    await once(holder, 'exit');
    await checkpointer.close();
  });

  it('gives up after busyTimeout with a StorageError whose cause is SQLITE_BUSY, writing nothing', async () => {
    const path = tempDbPath();
    const checkpointer = new SqliteCheckpointer(path, { busyTimeout: 100 });
    await checkpointer.setup();
    const holder = rawDb(path);
    holder.exec('BEGIN IMMEDIATE');
    const started = performance.now();
    const error = await checkpointer.put(cp(0)).catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    expect(isFlowError(error, 'STORAGE')).toBe(true);
    expect((error as Error & { cause: { code: string } }).cause.code).toBe('SQLITE_BUSY');
    holder.exec('COMMIT');
    expect(await checkpointer.get('t')).toBeUndefined();
    await checkpointer.close();
  });
});
