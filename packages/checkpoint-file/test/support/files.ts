import { lstat, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Checkpoint } from '@flow/core';
import { afterEach, beforeEach } from 'vitest';

/** A fresh temp directory for one test; `store` is a not-yet-existing root inside it. */
export async function tempBase(): Promise<{ base: string; store: string; remove: () => Promise<void> }> {
  const base = await mkdtemp(join(tmpdir(), 'flow-file-test-'));
  return { base, store: join(base, 'store'), remove: () => rm(base, { recursive: true, force: true }) };
}

/**
 * A fresh `tempBase()` for each test of the calling file (or `describe` block), removed after the test: call
 * it at the top, then read `t.store` / `t.base` inside tests and hooks.
 */
export function useTempBase(): { readonly base: string; readonly store: string } {
  let current: Awaited<ReturnType<typeof tempBase>> | undefined;
  beforeEach(async () => {
    current = await tempBase();
  });
  afterEach(async () => {
    await current?.remove();
  });
  return {
    get base() {
      return current!.base;
    },
    get store() {
      return current!.store;
    },
  };
}

export interface Entry {
  path: string;
  name: string;
  dir: boolean;
  mode: number;
}

/** Every entry beneath `root` (not `root` itself), depth first, without following symlinks. */
export async function walk(root: string): Promise<Entry[]> {
  const out: Entry[] = [];
  for (const name of await readdir(root)) {
    const path = join(root, name);
    const st = await lstat(path);
    out.push({ path, name, dir: st.isDirectory(), mode: st.mode & 0o777 });
    if (st.isDirectory()) out.push(...(await walk(path)));
  }
  return out;
}

/** A small checkpoint. */
export function cp(thread: string, step: number, state: unknown = { step }): Checkpoint {
  return new Checkpoint({ thread, step, state, next: ['n'] });
}
