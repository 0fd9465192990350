import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { threadName } from '../src/thread-name.js';
import { cp, useTempBase } from './support/files.js';

const t = useTempBase();

/** A temp file as a writer that crashed before its rename leaves it: a complete, valid step 5. */
async function leaveTemp(thread: string): Promise<string> {
  const dir = join(t.store, 'threads', threadName(thread));
  const other = new FileCheckpointer(join(t.base, 'scratch'));
  await other.put(cp(thread, 5, 'from the crash'));
  const scratch = join(t.base, 'scratch', 'threads', threadName(thread), '0000000005.json');
  const temp = join(dir, '.tmp-99999-deadbeef0000');
  await writeFile(temp, await readFile(scratch));
  await other.close();
  return temp;
}

describe('a temp file left by a crash', () => {
  it('is never mistaken for a checkpoint', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(cp('t', 0));
    await leaveTemp('t');
    expect((await fc.get('t'))?.step).toBe(0);
    expect((await fc.list('t')).map((c) => c.step)).toEqual([0]);
    expect(await fc.get('t', 5)).toBeUndefined();
    expect((await fc.listThreads()).map((i) => i.latestStep)).toEqual([0]);
    await fc.close();
  });

  it('is removed by the next prune of its thread', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(cp('t', 0));
    await fc.put(cp('t', 1));
    const temp = await leaveTemp('t');
    expect(await fc.prune('t', { beforeStep: 1 })).toBe(1);
    expect(await readdir(join(temp, '..'))).toEqual(['0000000001.json', 'thread.json']);
    await fc.close();
  });

  it('is removed when the crashed writer’s stale lock is broken', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(cp('t', 0));
    const temp = await leaveTemp('t');
    // The crashed writer's lock: a pid that cannot be alive on this host.
    const lock = join(t.store, 'locks', `${threadName('t')}.lock`);
    const host = (await import('node:os')).hostname();
    await writeFile(
      lock,
      JSON.stringify({ pid: 2 ** 30, host, token: 'crashed', at: new Date().toISOString() }),
    );
    await fc.put(cp('t', 1));
    expect(await readdir(join(temp, '..'))).toEqual(['0000000000.json', '0000000001.json', 'thread.json']);
    expect(await readdir(join(t.store, 'locks'))).toEqual([]);
    await fc.close();
  });

  it('is removed with its thread by deleteThread, and counts as no checkpoint', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(cp('t', 0));
    await leaveTemp('t');
    expect(await fc.deleteThread('t')).toBe(1);
    expect(await readdir(join(t.store, 'threads'))).toEqual([]);
    await fc.close();
  });
});

describe('a thread directory a crashed deleteThread renamed away', () => {
  it('is invisible and removed by the next setup()', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(cp('t', 0));
    const trash = join(t.store, 'threads', '.trash-99999-0123456789ab');
    await mkdir(trash);
    await writeFile(join(trash, '0000000000.json'), 'x');
    expect((await fc.listThreads()).map((i) => i.thread)).toEqual(['t']);
    await fc.close();
    const again = new FileCheckpointer(t.store);
    await again.setup();
    expect(await readdir(join(t.store, 'threads'))).toEqual([threadName('t')]);
    await again.close();
  });
});

describe('a thread directory left with no step (a crash before the first rename)', () => {
  it('is not listed and reads as absent', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(cp('real', 0));
    await mkdir(join(t.store, 'threads', threadName('ghost')));
    expect((await fc.listThreads()).map((i) => i.thread)).toEqual(['real']);
    expect(await fc.get('ghost')).toBeUndefined();
    expect(await fc.list('ghost')).toEqual([]);
    expect((await fc.put(cp('ghost', 0), { ifRevision: 0 })).revision).toBe(1);
    expect((await fc.listThreads()).map((i) => i.thread)).toEqual(['ghost', 'real']);
    await fc.close();
  });
});
