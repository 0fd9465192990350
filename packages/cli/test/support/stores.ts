import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Checkpointer } from '@flow/core';
import { deleteKeys, dropSchema, uniquePrefix, uniqueSchema } from '@flow/test-db';
import { inject } from 'vitest';
import type { StoreKind } from '../../src/store/store-url.js';

/** A fresh, empty store of one kind: its `--store` URL, an API handle on it, and its cleanup. */
export interface StoreFixture {
  kind: StoreKind;
  /** What to pass as `--store`. */
  url: string;
  /** A checkpointer on the same storage, to populate and check it through the API. */
  open(): Promise<Checkpointer>;
  cleanup(): Promise<void>;
}

function withParam(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

/** Creates a fresh store of `kind`: a temp file or directory, a unique schema, or a unique key prefix. */
export async function createStore(kind: StoreKind): Promise<StoreFixture> {
  switch (kind) {
    case 'sqlite': {
      const dir = await mkdtemp(join(tmpdir(), 'flow-cli-sqlite-'));
      const path = join(dir, 'runs.db');
      const { SqliteCheckpointer } = await import('@flow/checkpoint-sqlite');
      return {
        kind,
        url: `sqlite:${path}`,
        open: async () => new SqliteCheckpointer(path),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    }
    case 'file': {
      const dir = await mkdtemp(join(tmpdir(), 'flow-cli-file-'));
      const root = join(dir, 'runs');
      const { FileCheckpointer } = await import('@flow/checkpoint-file');
      return {
        kind,
        url: `file:${root}`,
        open: async () => new FileCheckpointer(root),
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    }
    case 'postgres': {
      const server = inject('flowTestPostgresUrl');
      const schema = uniqueSchema();
      const { PostgresCheckpointer } = await import('@flow/checkpoint-postgres');
      return {
        kind,
        url: withParam(server, 'schema', schema),
        open: async () => new PostgresCheckpointer(server, { schema }),
        cleanup: () => dropSchema(server, schema),
      };
    }
    case 'redis': {
      const server = inject('flowTestRedisUrl');
      const prefix = uniquePrefix();
      const { RedisCheckpointer } = await import('@flow/checkpoint-redis');
      return {
        kind,
        url: withParam(server, 'prefix', prefix),
        open: async () => new RedisCheckpointer(server, { prefix }),
        cleanup: async () => {
          await deleteKeys(server, prefix);
        },
      };
    }
  }
}

/** Runs `fn` with an API handle on the fixture's store, closing it afterwards. */
export async function usingStore<T>(store: StoreFixture, fn: (cp: Checkpointer) => Promise<T>): Promise<T> {
  const cp = await store.open();
  try {
    return await fn(cp);
  } finally {
    await cp.close();
  }
}
