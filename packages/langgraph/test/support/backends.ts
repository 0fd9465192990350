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

/** How a child process opens the same store: the module, its export, and the constructor's arguments. */
export interface Opener {
  module: string;
  export: string;
  args: unknown[];
}

/** A backend the suites run on: a fresh, empty store per call, and how another process opens it. */
export interface Backend {
  name: string;
  create(): Promise<{ store: Checkpointer; opener: Opener | undefined }>;
}

const dir = mkdtempSync(join(tmpdir(), 'flow-langgraph-'));
let files = 0;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const clean of cleanups.splice(0)) await clean().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});

/** memory, file, SQLite, Postgres and Redis; the last two on the run's servers. */
export function allBackends(): Backend[] {
  const postgres = inject('flowTestPostgresUrl');
  const redis = inject('flowTestRedisUrl');
  const opened = <C extends Checkpointer>(store: C, opener: Opener | undefined) => {
    cleanups.unshift(() => store.close());
    return { store, opener };
  };
  return [
    { name: 'memory', create: async () => opened(new MemoryCheckpointer(), undefined) },
    {
      name: 'file',
      create: async () => {
        const root = join(dir, `store-${++files}`);
        return opened(new FileCheckpointer(root), {
          module: '@flow/checkpoint-file',
          export: 'FileCheckpointer',
          args: [root],
        });
      },
    },
    {
      name: 'sqlite',
      create: async () => {
        const args = [join(dir, `store-${++files}.db`), { synchronous: 'normal' }];
        return opened(new SqliteCheckpointer(...(args as [string, { synchronous: 'normal' }])), {
          module: '@flow/checkpoint-sqlite',
          export: 'SqliteCheckpointer',
          args,
        });
      },
    },
    {
      name: 'postgres',
      create: async () => {
        const schema = uniqueSchema();
        cleanups.push(() => dropSchema(postgres, schema));
        return opened(new PostgresCheckpointer(postgres, { schema }), {
          module: '@flow/checkpoint-postgres',
          export: 'PostgresCheckpointer',
          args: [postgres, { schema }],
        });
      },
    },
    {
      name: 'redis',
      create: async () => {
        const prefix = uniquePrefix();
        cleanups.push(() => deleteKeys(redis, prefix));
        return opened(new RedisCheckpointer(redis, { prefix }), {
          module: '@flow/checkpoint-redis',
          export: 'RedisCheckpointer',
          args: [redis, { prefix }],
        });
      },
    },
  ];
}
