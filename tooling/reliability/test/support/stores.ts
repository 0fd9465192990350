import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildOpener } from '@flow/checkpoint-conformance';
import { FileCheckpointer } from '@flow/checkpoint-file';
import { MemoryCheckpointer } from '@flow/checkpoint-memory';
import { PostgresCheckpointer, type PostgresCheckpointerOptions } from '@flow/checkpoint-postgres';
import { RedisCheckpointer, type RedisCheckpointerOptions } from '@flow/checkpoint-redis';
import { SqliteCheckpointer, type SqliteCheckpointerOptions } from '@flow/checkpoint-sqlite';
import type { Checkpointer } from '@flow/core';
import { deleteKeys, dropSchema, uniquePrefix, uniqueSchema } from '@flow/test-db';
import { inject } from 'vitest';

export type BackendName = 'memory' | 'file' | 'sqlite' | 'postgres' | 'redis';
export const ALL_BACKENDS: readonly BackendName[] = ['memory', 'file', 'sqlite', 'postgres', 'redis'];
/** The backends whose storage outlives a process (and so can be shared between processes). */
export const SHARED_BACKENDS: readonly BackendName[] = ['file', 'sqlite', 'postgres', 'redis'];

const require = createRequire(import.meta.url);

/** The built entry of a package, as a child process imports it. */
export function builtEntry(pkg: string): string {
  return require.resolve(pkg);
}

/** A fresh, empty storage of one backend: open instances on it, let child processes open it, remove it. */
export interface Store {
  readonly backend: BackendName;
  /** Where it lives: a directory, a file, a schema or a key prefix. */
  readonly location: string;
  /** A new checkpointer on this storage (closed by `remove()` unless closed before). */
  open(options?: Record<string, unknown>): Checkpointer;
  /** How a child process opens it (`undefined` for memory). */
  readonly opener: ChildOpener | undefined;
  /** Closes every instance `open()` made and removes the storage. */
  remove(): Promise<void>;
}

/** The servers of this run, as the global setups found them. */
export function serverUrls(): { postgres: string; redis: string } {
  return { postgres: inject('flowTestPostgresUrl'), redis: inject('flowTestRedisUrl') };
}

/** Fresh storage of `backend`: a temp directory, a temp database file, a unique schema or prefix. */
export function freshStore(backend: BackendName): Store {
  const opened: Checkpointer[] = [];
  const track = <C extends Checkpointer>(cp: C): C => {
    opened.push(cp);
    return cp;
  };
  const closeAll = async () => {
    await Promise.all(opened.splice(0).map((cp) => cp.close().catch(() => {})));
  };
  switch (backend) {
    case 'memory': {
      // In-process: one instance is the storage. Options (a serializer, say) make a separate one.
      const shared = new MemoryCheckpointer();
      return {
        backend,
        location: 'memory',
        open: (options) => (options === undefined ? shared : track(new MemoryCheckpointer(options))),
        opener: undefined,
        remove: async () => {
          await closeAll();
          await shared.close();
        },
      };
    }
    case 'file': {
      const base = mkdtempSync(join(tmpdir(), 'flow-rel-file-'));
      const dir = join(base, 'store');
      return {
        backend,
        location: dir,
        open: (options) => track(new FileCheckpointer(dir, options)),
        opener: { module: builtEntry('@flow/checkpoint-file'), export: 'FileCheckpointer', args: [dir] },
        remove: async () => {
          await closeAll();
          rmSync(base, { recursive: true, force: true });
        },
      };
    }
    case 'sqlite': {
      const base = mkdtempSync(join(tmpdir(), 'flow-rel-sqlite-'));
      const path = join(base, 'flow.db');
      return {
        backend,
        location: path,
        open: (options) => track(new SqliteCheckpointer(path, options as SqliteCheckpointerOptions)),
        opener: { module: builtEntry('@flow/checkpoint-sqlite'), export: 'SqliteCheckpointer', args: [path] },
        remove: async () => {
          await closeAll();
          rmSync(base, { recursive: true, force: true });
        },
      };
    }
    case 'postgres': {
      const url = serverUrls().postgres;
      const schema = uniqueSchema();
      return {
        backend,
        location: schema,
        open: (options) =>
          track(new PostgresCheckpointer(url, { schema, ...(options as PostgresCheckpointerOptions) })),
        opener: {
          module: builtEntry('@flow/checkpoint-postgres'),
          export: 'PostgresCheckpointer',
          args: [url, { schema }],
        },
        remove: async () => {
          await closeAll();
          await dropSchema(url, schema);
        },
      };
    }
    case 'redis': {
      const url = serverUrls().redis;
      const prefix = uniquePrefix();
      return {
        backend,
        location: prefix,
        open: (options) =>
          track(new RedisCheckpointer(url, { prefix, ...(options as RedisCheckpointerOptions) })),
        opener: {
          module: builtEntry('@flow/checkpoint-redis'),
          export: 'RedisCheckpointer',
          args: [url, { prefix }],
        },
        remove: async () => {
          await closeAll();
          await deleteKeys(url, prefix);
        },
      };
    }
  }
}
