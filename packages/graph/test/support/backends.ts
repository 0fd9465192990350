import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import type { Checkpointer } from '@flow/core';
import { afterAll } from 'vitest';

/** A backend the engine suites run on: a fresh, empty store per call. */
export interface Backend {
  name: string;
  create(): Promise<Checkpointer>;
}

/** A temp directory for the importing test file, removed when its tests end. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'flow-graph-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Created at import (test collection), so its afterAll belongs to the importing file.
const dir = tempDir();
let files = 0;

export const backends: Backend[] = [
  { name: 'memory', create: async () => new MemoryCheckpointer() },
  {
    name: 'sqlite',
    create: async () => {
      files += 1;
      // 'normal' skips the fsync per step; the engine's behaviour does not depend on it, and the suites stay fast.
      return new SqliteCheckpointer(join(dir, `engine-${files}.db`), { synchronous: 'normal' });
    },
  },
];
