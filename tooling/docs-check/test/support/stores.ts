import { randomBytes } from 'node:crypto';
import { deleteKeys, uniquePrefix } from '@flow/test-db';
import pg from 'pg';

/** What a docs block may read from its environment, and how to remove what the blocks wrote. */
export interface DocsStores {
  /** The environment of block `index`: one database for all, a Redis key prefix of its own. */
  envFor(index: number): { DATABASE_URL: string; REDIS_URL: string };
  drop(): Promise<void>;
}

/**
 * Stores for the docs blocks: a Postgres database of their own (so a block may use any schema, the default
 * `flow` included) and a Redis URL carrying a key prefix no other suite uses (`?prefix=`, which
 * RedisCheckpointer honours).
 */
export async function docsStores(postgresUrl: string, redisUrl: string): Promise<DocsStores> {
  const database = `flow_docs_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${database}"`);
  } finally {
    await admin.end();
  }
  const pgUrl = new URL(postgresUrl);
  pgUrl.pathname = `/${database}`;
  const prefix = uniquePrefix();
  const redis = new URL(redisUrl);
  redis.searchParams.set('prefix', prefix);
  return {
    envFor(index) {
      const own = new URL(redis);
      own.searchParams.set('prefix', `${prefix}-${index}`); // still under `prefix`, so drop() deletes it
      return { DATABASE_URL: pgUrl.href, REDIS_URL: own.href };
    },
    async drop() {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
      await deleteKeys(redisUrl, prefix);
    },
  };
}
