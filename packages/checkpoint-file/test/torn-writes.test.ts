import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { stepWritesDir } from '../src/layout.js';
import { threadName } from '../src/thread-name.js';
import { useTempBase } from './support/files.js';

const CHILD = join(import.meta.dirname, 'fixtures', 'torn-write-child.mjs');
const KILLS = 5;
/** The victim's values are 8 MiB of text: a whole write file is larger. */
const VALUE_BYTES = 8 * 1024 * 1024;

const t = useTempBase();

/**
 * Starts the victim and SIGKILLs it the moment a file in the step's writes directory is seen half-written
 * (smaller than a whole value): a writer that gives a write its real name before its bytes are all there
 * leaves that torn file behind; a correct one leaves only a temp file.
 */
async function killMidWrite(thread: string): Promise<void> {
  const child = spawn(process.execPath, [CHILD, t.store, thread], { stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const dir = stepWritesDir(join(t.store, 'threads', threadName(thread)), 0);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline && !(await halfWritten(dir))) {}
  child.kill('SIGKILL');
  await exited;
}

async function halfWritten(dir: string): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return false; // not created yet
  }
  for (const name of names) {
    const size = await stat(join(dir, name)).then(
      (s) => s.size,
      () => VALUE_BYTES,
    );
    if (size < VALUE_BYTES) return true;
  }
  return false;
}

it('a per-step write killed mid-way is stored whole or not at all, and the key can be written after', async () => {
  const fc = new FileCheckpointer(t.store, { lockStaleMs: 60_000, lockTimeoutMs: 20_000 });
  for (let kill = 0; kill < KILLS; kill++) {
    const thread = `torn-${kill}`;
    await killMidWrite(thread);
    // Every write that is there reads back whole (a torn file would be a CorruptCheckpointError).
    const writes = await fc.getWrites(thread, 0);
    for (const w of writes) {
      const value = w.value as { i: number; value: string };
      expect(w.key).toBe(`k${value.i}`);
      expect(value.value).toHaveLength(VALUE_BYTES);
    }
    // The key the victim was writing when it died can still be stored, and it is the value read.
    const next = `k${writes.length}`;
    await fc.putWrites(thread, 0, [{ node: 'n', key: next, value: 'after' }]);
    const after = await fc.getWrites(thread, 0);
    expect(after.find((w) => w.key === next)?.value).toBe('after');
    // The dead writer's temp file is gone: the next writer swept it.
    const dir = stepWritesDir(join(t.store, 'threads', threadName(thread)), 0);
    expect((await readdir(dir)).filter((f) => !f.endsWith('.json'))).toEqual([]);
  }
  await fc.close();
}, 120_000);
