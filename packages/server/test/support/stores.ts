import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import type { Checkpointer } from '@flow/core';
import { dropSchema, uniqueSchema } from '@flow/test-db';
import { inject } from 'vitest';

export type StoreKind = 'sqlite' | 'postgres';

/** A fresh store: how to open a checkpointer on it (several may be open at once), and its cleanup. */
export interface StoreFixture {
  kind: StoreKind;
  /** What a child process needs to open the same store. */
  spec: { kind: StoreKind; path?: string; url?: string; schema?: string };
  open(): Checkpointer;
  cleanup(): Promise<void>;
}

/** A temp SQLite file, or a unique schema on the test Postgres server. */
export async function createStore(kind: StoreKind): Promise<StoreFixture> {
  if (kind === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'flow-server-'));
    const path = join(dir, 'runs.db');
    return {
      kind,
      spec: { kind, path },
      open: () => new SqliteCheckpointer(path),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const url = inject('flowTestPostgresUrl');
  const schema = uniqueSchema();
  return {
    kind,
    spec: { kind, url, schema },
    open: () => new PostgresCheckpointer(url, { schema }),
    cleanup: () => dropSchema(url, schema),
  };
}
