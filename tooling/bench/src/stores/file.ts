import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FileCheckpointer, type FileCheckpointerOptions } from '@flow/checkpoint-file';
import type { Checkpointer } from '@flow/core';
import type { BenchContext } from '../context.js';
import type { OpenedStore } from './types.js';

/** Sum of the sizes of every file under `dir` (the bytes the store wrote, not the blocks they fill). */
export function directoryBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}

/**
 * @flow's `FileCheckpointer` on a fresh temp directory. The file backend has no raw floor here: only the
 * storage workloads (W6, W9) measure it, for its bytes.
 */
export async function openFileFlow(
  ctx: BenchContext,
  options?: FileCheckpointerOptions,
): Promise<OpenedStore<Checkpointer>> {
  const dir = ctx.tempPath('file');
  const store = new FileCheckpointer(dir, options);
  await store.setup();
  return {
    store,
    counters: undefined,
    storedBytes: async () => directoryBytes(dir),
    close: ctx.track(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }),
  };
}
