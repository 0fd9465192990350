import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCheckpointer } from '@flow/checkpoint-file';
import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { RedisCheckpointer } from '@flow/checkpoint-redis';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import type { Checkpointer } from '@flow/core';
import { deleteKeys, dropSchema, uniquePrefix, uniqueSchema } from '@flow/test-db';
import { afterAll, inject } from 'vitest';

/** A backend the engine suites run on: a fresh, empty store per call. */
export interface Backend {
  name: string;
  create(): Promise<Checkpointer>;
  /**
   * How a child process opens the same store as `cp` (a store made by this backend's `create`): the module,
   * its export and the constructor's arguments. Memory has none (it lives in one process).
   */
  openInChild?(cp: Checkpointer): { module: string; export: string; args: unknown[] };
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
const opened: Checkpointer[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cp of opened.splice(0)) await cp.close().catch(() => {});
  for (const clean of cleanups.splice(0)) await clean().catch(() => {});
});

function track<C extends Checkpointer>(cp: C): C {
  opened.push(cp);
  return cp;
}

const where = new WeakMap<Checkpointer, unknown[]>();

/** memory and SQLite: the two the engine's general suites run on. */
export const backends: Backend[] = [
  { name: 'memory', create: async () => new MemoryCheckpointer() },
  {
    name: 'sqlite',
    create: async () => {
      files += 1;
      // 'normal' skips the fsync per step; the engine's behaviour does not depend on it, and the suites stay fast.
      return track(new SqliteCheckpointer(join(dir, `engine-${files}.db`), { synchronous: 'normal' }));
    },
  },
];

function sqliteBackend(): Backend {
  return {
    name: 'sqlite',
    create: async () => {
      files += 1;
      const path = join(dir, `durable-${files}.db`);
      const cp = track(new SqliteCheckpointer(path, { synchronous: 'normal' }));
      where.set(cp, [path, { synchronous: 'normal' }]);
      return cp;
    },
    openInChild: (cp) => ({
      module: '@flow/checkpoint-sqlite',
      export: 'SqliteCheckpointer',
      args: where.get(cp) as unknown[],
    }),
  };
}

/** Every backend: the durable-node suites run on all five, Postgres and Redis on the run's real servers. */
export function allBackends(): Backend[] {
  const postgres = inject('flowTestPostgresUrl');
  const redis = inject('flowTestRedisUrl');
  return [
    { name: 'memory', create: async () => new MemoryCheckpointer() },
    {
      name: 'file',
      create: async () => {
        files += 1;
        const root = join(dir, `store-${files}`);
        const cp = track(new FileCheckpointer(root));
        where.set(cp, [root]);
        return cp;
      },
      openInChild: (cp) => ({
        module: '@flow/checkpoint-file',
        export: 'FileCheckpointer',
        args: where.get(cp) as unknown[],
      }),
    },
    sqliteBackend(),
    {
      name: 'postgres',
      create: async () => {
        const schema = uniqueSchema();
        cleanups.push(() => dropSchema(postgres, schema));
        const cp = track(new PostgresCheckpointer(postgres, { schema }));
        where.set(cp, [postgres, { schema }]);
        return cp;
      },
      openInChild: (cp) => ({
        module: '@flow/checkpoint-postgres',
        export: 'PostgresCheckpointer',
        args: where.get(cp) as unknown[],
      }),
    },
    {
      name: 'redis',
      create: async () => {
        const prefix = uniquePrefix();
        cleanups.push(() => deleteKeys(redis, prefix));
        const cp = track(new RedisCheckpointer(redis, { prefix }));
        where.set(cp, [redis, { prefix }]);
        return cp;
      },
      openInChild: (cp) => ({
        module: '@flow/checkpoint-redis',
        export: 'RedisCheckpointer',
        args: where.get(cp) as unknown[],
      }),
    },
  ];
}
