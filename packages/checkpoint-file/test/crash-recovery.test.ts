import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { threadName } from '../src/thread-name.js';
import { cp, useTempBase } from './support/files.js';

const CHILD = join(import.meta.dirname, 'fixtures', 'crash-child.mjs');

const t = useTempBase();

/** Polls until the thread directory holds a temp file, i.e. a put is between its write and its rename. */
async function tempAppears(thread: string): Promise<void> {
  const dir = join(t.store, 'threads', threadName(thread));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if ((await readdir(dir)).some((f) => f.startsWith('.tmp-'))) return;
  }
}

/**
 * Runs the victim until it has committed `steps` steps, then SIGKILLs it: `delayMs` later, or (`'temp'`)
 * as soon as a temp file shows, so the kill lands mid-put with the lock held and a temp file on disk.
 */
async function crashWriter(thread: string, steps: number, when: number | 'temp'): Promise<void> {
  const child = spawn(process.execPath, [CHILD, t.store, thread], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let committed = 0;
  await new Promise<void>((resolve) => {
    createInterface({ input: child.stdout! }).on('line', () => {
      if (++committed === steps) resolve();
    });
  });
  if (when === 'temp') await tempAppears(thread);
  else await new Promise((resolve) => setTimeout(resolve, when));
  child.kill('SIGKILL');
  await exited;
}

it('a writer killed mid-put leaves intact checkpoints, and the next put recovers its lock and temp files', async () => {
  const fc = new FileCheckpointer(t.store, { lockStaleMs: 60_000, lockTimeoutMs: 20_000 });
  for (const [i, when] of ([0, 7, 'temp', 'temp'] as const).entries()) {
    const thread = `crash-${i}`;
    await crashWriter(thread, 2, when);
    // Whatever the kill interrupted, every stored step reads back whole, and the latest is consistent.
    const all = await fc.list(thread);
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const c of all) expect((c.state as { step: number }).step).toBe(c.step);
    const latest = all[0]!;
    expect((await fc.get(thread))?.step).toBe(latest.step);
    // The next put does not wait for the dead writer's lock, and leaves nothing of the crash behind.
    const started = Date.now();
    await fc.put(cp(thread, latest.step + 1), { ifRevision: 0 });
    expect(Date.now() - started).toBeLessThan(10_000);
    const files = await readdir(join(t.store, 'threads', threadName(thread)));
    expect(files.filter((f) => f.startsWith('.'))).toEqual([]);
    expect(await readdir(join(t.store, 'locks'))).toEqual([]);
    const info = (await fc.listThreads()).find((x) => x.thread === thread);
    expect(info?.latestStep).toBe(latest.step + 1);
  }
  await fc.close();
}, 90_000);
