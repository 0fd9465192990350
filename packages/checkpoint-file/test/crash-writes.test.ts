import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { threadName } from '../src/thread-name.js';
import { cp, useTempBase } from './support/files.js';

const CHILD = join(import.meta.dirname, 'fixtures', 'crash-writes-child.mjs');
const WRITES = 20;

const t = useTempBase();

/** Runs the victim past its first put, then SIGKILLs it as soon as a staging directory shows. */
async function killWhileStaged(thread: string): Promise<void> {
  const child = spawn(process.execPath, [CHILD, t.store, thread, String(WRITES)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', () => resolve()),
  );
  const dir = join(t.store, 'threads', threadName(thread));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !(await readdir(dir)).some((f) => f.startsWith('.stage-'))) {}
  child.kill('SIGKILL');
  await exited;
}

it('a put with writes killed mid-way shows its checkpoint and all its writes, or neither', async () => {
  const fc = new FileCheckpointer(t.store, { lockStaleMs: 60_000, lockTimeoutMs: 20_000 });
  for (let i = 0; i < 3; i++) {
    const thread = `crash-${i}`;
    await killWhileStaged(thread);
    const latest = (await fc.get(thread))!.step;
    // Every stored step has all its writes; the step after the latest (the one killed) has none.
    for (let step = 0; step <= latest; step++) {
      const writes = await fc.getWrites(thread, step);
      expect(writes).toHaveLength(WRITES);
      for (const w of writes) expect((w.value as { step: number }).step).toBe(step);
    }
    expect(await fc.getWrites(thread, latest + 1)).toEqual([]);
    // The next put recovers the dead writer's lock and leaves nothing of the crash behind.
    await fc.put(cp(thread, latest + 1), {
      ifRevision: 0,
      writes: [{ node: 'n0', key: 'k', value: 'after' }],
    });
    expect(await fc.getWrites(thread, latest + 1)).toEqual([{ node: 'n0', key: 'k', value: 'after' }]);
    const files = await readdir(join(t.store, 'threads', threadName(thread)));
    expect(files.filter((f) => f.startsWith('.'))).toEqual([]);
  }
  await fc.close();
}, 90_000);
