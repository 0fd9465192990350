import { chmod, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileLock } from '../src/file-lock.js';
import { FileCheckpointer } from '../src/index.js';
import { cp, tempBase, walk } from './support/files.js';

const saved = process.umask();
afterEach(() => {
  process.umask(saved);
});

async function fillStore(store: string): Promise<void> {
  const fc = new FileCheckpointer(store);
  await fc.put(cp('a', 0));
  await fc.put(cp('a', 1));
  await fc.put(cp('b/../c', 0));
  await fc.prune('a', { beforeStep: 1 });
  await fc.close();
}

describe.each([0o000, 0o077, 0o022])('under umask %o', (umask) => {
  it('creates the root 0o700, missing parents as mkdir -p, and everything beneath 0o700 / 0o600', async () => {
    const t = await tempBase();
    try {
      process.umask(umask);
      const store = join(t.base, 'p1', 'p2', 'store');
      await fillStore(store);
      expect((await stat(store)).mode & 0o777).toBe(0o700);
      // Parents get the default mode, as `mkdir -p` gives them.
      expect((await stat(join(t.base, 'p1'))).mode & 0o777).toBe(0o777 & ~umask);
      expect((await stat(join(t.base, 'p1', 'p2'))).mode & 0o777).toBe(0o777 & ~umask);
      const entries = await walk(store);
      expect(entries.filter((e) => !e.dir).length).toBeGreaterThanOrEqual(4);
      for (const e of entries) expect([e.path, e.mode]).toEqual([e.path, e.dir ? 0o700 : 0o600]);
    } finally {
      await t.remove();
    }
  });

  it('creates lock files 0o600', async () => {
    const t = await tempBase();
    try {
      process.umask(umask);
      await mkdir(t.store);
      const lock = new FileLock(join(t.store, 'x.lock'), { staleMs: 1000, timeoutMs: 1000 });
      await lock.acquire();
      expect((await stat(join(t.store, 'x.lock'))).mode & 0o777).toBe(0o600);
      await lock.release();
    } finally {
      await t.remove();
    }
  });
});

it('chmods explicitly: under umask 0o277, which strips even owner bits, modes are still 0o700 / 0o600', async () => {
  const t = await tempBase();
  try {
    process.umask(0o277);
    await fillStore(t.store);
    expect((await stat(t.store)).mode & 0o777).toBe(0o700);
    const entries = await walk(t.store);
    for (const e of entries) expect([e.path, e.mode]).toEqual([e.path, e.dir ? 0o700 : 0o600]);
  } finally {
    process.umask(saved);
    await t.remove();
  }
});

describe('an existing root', () => {
  it('keeps its mode, while what the checkpointer creates inside is private', async () => {
    const t = await tempBase();
    try {
      await mkdir(t.store);
      await chmod(t.store, 0o755);
      await fillStore(t.store);
      expect((await stat(t.store)).mode & 0o777).toBe(0o755);
      for (const e of await walk(t.store)) expect(e.mode).toBe(e.dir ? 0o700 : 0o600);
    } finally {
      await t.remove();
    }
  });

  it('that is a file fails setup with StorageError', async () => {
    const t = await tempBase();
    try {
      const fc = new FileCheckpointer(join(t.base, 'p', 'file'));
      await mkdir(join(t.base, 'p'));
      await (await import('node:fs/promises')).writeFile(join(t.base, 'p', 'file'), 'x');
      await expect(fc.setup()).rejects.toMatchObject({ code: 'STORAGE' });
    } finally {
      await t.remove();
    }
  });
});
