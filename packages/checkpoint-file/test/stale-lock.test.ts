import { spawnSync } from 'node:child_process';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { FileLock, pidAlive } from '../src/file-lock.js';
import { FileCheckpointer } from '../src/index.js';
import { threadName } from '../src/thread-name.js';
import { cp, useTempBase } from './support/files.js';

const t = useTempBase();

/** The pid of a process that has just exited: certainly not alive. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  const pid = Number(child.stdout);
  expect(pidAlive(pid)).toBe(false);
  return pid;
}

async function plantLock(store: string, thread: string, owner: object, ageMs = 0): Promise<string> {
  const path = join(store, 'locks', `${threadName(thread)}.lock`);
  await writeFile(path, typeof owner === 'string' ? owner : JSON.stringify(owner));
  const when = new Date(Date.now() - ageMs);
  await utimes(path, when, when);
  return path;
}

async function ready(options = {}): Promise<FileCheckpointer> {
  const fc = new FileCheckpointer(t.store, options);
  await fc.setup();
  return fc;
}

describe('a lock left by a crashed process', () => {
  it('whose pid is gone is broken at once, even when it is fresh', async () => {
    const fc = await ready({ lockStaleMs: 60_000, lockTimeoutMs: 60_000 });
    await plantLock(t.store, 't', {
      pid: deadPid(),
      host: hostname(),
      token: 'x',
      at: new Date().toISOString(),
    });
    const started = Date.now();
    expect((await fc.put(cp('t', 0), { ifRevision: 0 })).revision).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await readdir(join(t.store, 'locks'))).toEqual([]);
    await fc.close();
  });

  it('whose pid is alive (reused) is broken once older than lockStaleMs', async () => {
    const fc = await ready({ lockStaleMs: 1_000, lockTimeoutMs: 60_000 });
    const owner = { pid: process.pid, host: hostname(), token: 'x', at: new Date().toISOString() };
    await plantLock(t.store, 't', owner, 5_000);
    expect((await fc.put(cp('t', 0))).revision).toBe(1);
    await fc.close();
  });

  it('from another host is judged by age alone', async () => {
    const fc = await ready({ lockStaleMs: 1_000, lockTimeoutMs: 300 });
    const owner = { pid: deadPid(), host: `not-${hostname()}`, token: 'x', at: new Date().toISOString() };
    const path = await plantLock(t.store, 't', owner);
    // Fresh: its pid means nothing here, so it is waited for.
    await expect(fc.put(cp('t', 0))).rejects.toMatchObject({ code: 'STORAGE' });
    const old = new Date(Date.now() - 5_000);
    await utimes(path, old, old);
    expect((await fc.put(cp('t', 0))).revision).toBe(1);
    await fc.close();
  });

  it('that is empty (a crash right after creating it) is broken once a couple of seconds old', async () => {
    const fc = await ready({ lockTimeoutMs: 60_000 });
    await plantLock(t.store, 't', '' as unknown as object, 10_000);
    expect((await fc.put(cp('t', 0))).revision).toBe(1);
    await fc.close();
  });
});

describe('a lock held by a live process', () => {
  it('is waited for and the wait times out with StorageError naming the holder', async () => {
    const fc = await ready({ lockStaleMs: 60_000, lockTimeoutMs: 200 });
    await plantLock(t.store, 't', { pid: process.pid, host: hostname(), token: 'x', at: 'then' });
    const error = await fc.put(cp('t', 0)).catch((e: unknown) => e);
    expect(isFlowError(error, 'STORAGE')).toBe(true);
    expect((error as Error).message).toContain(`pid ${process.pid}`);
    expect(await fc.get('t')).toBeUndefined();
    await fc.close();
  });

  it('is taken as soon as the holder releases it', async () => {
    const fc = await ready({ lockStaleMs: 60_000, lockTimeoutMs: 10_000 });
    const holder = new FileLock(join(t.store, 'locks', `${threadName('t')}.lock`), {
      staleMs: 60_000,
      timeoutMs: 1_000,
    });
    await holder.acquire();
    const put = fc.put(cp('t', 0));
    await new Promise((r) => setTimeout(r, 100));
    expect(await fc.get('t')).toBeUndefined();
    await holder.release();
    expect((await put).revision).toBe(1);
    await fc.close();
  });

  it('is not removed by a release whose own lock was broken meanwhile', async () => {
    const path = join(t.store, 'x.lock');
    await (await import('node:fs/promises')).mkdir(t.store);
    const first = new FileLock(path, { staleMs: 60_000, timeoutMs: 1_000 });
    await first.acquire();
    // Someone judged it stale and took it over.
    await writeFile(path, JSON.stringify({ pid: process.pid, host: hostname(), token: 'other', at: 'now' }));
    await first.release();
    expect(await readdir(t.store)).toEqual(['x.lock']);
  });
});

describe('locks in one process', () => {
  it('queue without polling and leave no lock file behind', async () => {
    const fc = await ready();
    const again = await ready();
    const puts = Array.from({ length: 30 }, (_, i) =>
      (i % 2 ? fc : again).put(cp('t', 0, i), { ifRevision: 0 }).then(
        () => 'won',
        (e: unknown) => (isFlowError(e, 'CHECKPOINT_CONFLICT') ? 'lost' : e),
      ),
    );
    const results = await Promise.all(puts);
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost')).toHaveLength(29);
    expect(await readdir(join(t.store, 'locks'))).toEqual([]);
    await fc.close();
    await again.close();
  });
});
