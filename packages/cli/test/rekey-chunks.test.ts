import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Checkpoint } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoreKind } from '../src/store/store-url.js';
import { runBin } from './support/run-bin.js';
import { createStore, type StoreFixture, usingStore } from './support/stores.js';

const SECRET = 'sk-live-secret-in-a-large-state';
const k1 = randomBytes(32);
const K1 = { FLOW_KEYS: `k1:${k1.toString('base64')}` };

const fixtures: StoreFixture[] = [];
afterAll(async () => {
  await Promise.all(fixtures.map((f) => f.cleanup()));
});

/** A driver of a backend package, resolved from that package (the CLI does not depend on drivers). */
function driver<T>(backend: string, name: string): T {
  return createRequire(fileURLToPath(import.meta.resolve(backend)))(name) as T;
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(await readFile(path, 'utf8'));
  }
  return out;
}

/** Every value the store holds, as stored (rows, files or keys): where a secret left behind would show. */
async function rawContent(store: StoreFixture): Promise<string> {
  const url = new URL(store.url);
  switch (store.kind) {
    case 'sqlite': {
      type Db = { prepare(sql: string): { all(): unknown[] }; close(): void };
      const Database = driver<new (path: string) => Db>('@flow/checkpoint-sqlite', 'better-sqlite3');
      const db = new Database(store.url.slice('sqlite:'.length));
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {
          name: string;
        }[];
        return tables.map((t) => JSON.stringify(db.prepare(`SELECT * FROM "${t.name}"`).all())).join('\n');
      } finally {
        db.close();
      }
    }
    case 'file':
      return (await filesUnder(store.url.slice('file:'.length))).join('\n');
    case 'postgres': {
      type Client = {
        connect(): Promise<void>;
        query(sql: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
        end(): Promise<void>;
      };
      const pg = driver<{ Client: new (url: string) => Client }>('@flow/checkpoint-postgres', 'pg');
      const schema = url.searchParams.get('schema') as string;
      url.searchParams.delete('schema');
      const client = new pg.Client(url.toString());
      await client.connect();
      try {
        const { rows } = await client.query(
          'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
          [schema],
        );
        const parts: string[] = [];
        for (const { table_name } of rows) {
          const all = await client.query(`SELECT t::text AS row FROM "${schema}"."${table_name}" AS t`);
          parts.push(...all.rows.map((r) => String(r.row)));
        }
        return parts.join('\n');
      } finally {
        await client.end();
      }
    }
    case 'redis': {
      type Redis = {
        keys(pattern: string): Promise<string[]>;
        type(key: string): Promise<string>;
        get(key: string): Promise<string | null>;
        hgetall(key: string): Promise<Record<string, string>>;
        zrange(key: string, start: number, stop: number): Promise<string[]>;
        smembers(key: string): Promise<string[]>;
        lrange(key: string, start: number, stop: number): Promise<string[]>;
        quit(): Promise<unknown>;
      };
      const Redis = driver<new (url: string) => Redis>('@flow/checkpoint-redis', 'ioredis');
      const prefix = url.searchParams.get('prefix') as string;
      url.searchParams.delete('prefix');
      const client = new Redis(url.toString());
      try {
        const parts: string[] = [];
        for (const key of await client.keys(`${prefix}:*`)) {
          const type = await client.type(key);
          if (type === 'string') parts.push((await client.get(key)) ?? '');
          else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(key)));
          else if (type === 'zset') parts.push(...(await client.zrange(key, 0, -1)));
          else if (type === 'set') parts.push(...(await client.smembers(key)));
          else if (type === 'list') parts.push(...(await client.lrange(key, 0, -1)));
          else throw new Error(`unexpected ${type} at ${key}`);
        }
        return parts.join('\n');
      } finally {
        await client.quit();
      }
    }
  }
}

describe('flow rekey leaves nothing of a large state behind in plaintext', () => {
  it.each<StoreKind>(['sqlite', 'file', 'postgres', 'redis'])(
    '%s: a migrated thread whose states are stored as chunks keeps no plaintext chunk',
    async (kind) => {
      const store = await createStore(kind);
      fixtures.push(store);
      // A growing list: from the second step on, the states are stored as chunks shared between steps.
      await usingStore(store, async (cp) => {
        const log: string[] = [];
        for (let step = 0; step < 8; step++) {
          log.push(`${SECRET} ${step} ${'x'.repeat(3000)}`);
          await cp.put(
            new Checkpoint({ thread: 'big', step, state: { log }, next: step < 7 ? ['work'] : [] }),
          );
        }
      });
      expect(await rawContent(store)).toContain(SECRET);

      const rekey = await runBin(['rekey', '--all', '--store', store.url], { env: K1 });
      expect(rekey).toMatchObject({ code: 0 });
      expect(rekey.stdout).toContain('8 rewritten');

      expect(await rawContent(store)).not.toContain(SECRET);
      // And every step still reads, with the key alone (no plaintext allowed).
      const read = await runBin(['history', 'big', '--json', '--store', store.url], { env: K1 });
      expect(read.code).toBe(0);
      const steps = JSON.parse(read.stdout) as { step: number; state: { log: string[] } }[];
      expect(steps.map((c) => [c.step, c.state.log.length])).toEqual(
        [7, 6, 5, 4, 3, 2, 1, 0].map((s) => [s, s + 1]),
      );
    },
    60_000,
  );
});
