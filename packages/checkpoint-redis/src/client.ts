import { flowPrefix, InvalidArgumentError, StorageError } from '@flow/core';
import { Redis, type RedisOptions } from 'ioredis';

/** An argument of a Redis command. */
export type RedisArg = string | number;

/**
 * The part of an ioredis client the checkpointer calls. Any ioredis 5 `Redis` or `Cluster` instance fits; so
 * does a wrapper that counts or logs commands.
 */
export interface RedisClient {
  evalsha(sha: string, numKeys: number, ...args: RedisArg[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: RedisArg[]): Promise<unknown>;
  script(subcommand: 'LOAD', script: string): Promise<unknown>;
  multi(): RedisTransaction;
  /** Removes the chunks a put that wrote nothing had stored in its MULTI. */
  hdel(key: string, ...fields: string[]): Promise<number>;
  /** listThreads: one range of an index, with no script (a script would copy every member into Lua). */
  zrangebylex(
    key: string,
    min: string,
    max: string,
    limit: 'LIMIT',
    offset: number,
    count: number,
  ): Promise<string[]>;
}

/** The part of an ioredis `multi()` the checkpointer calls: commands queued, then sent with EXEC. */
export interface RedisTransaction {
  set(key: string, value: string): RedisTransaction;
  hsetnx(key: string, field: string, value: string): RedisTransaction;
  evalsha(sha: string, numKeys: number, ...args: RedisArg[]): RedisTransaction;
  eval(script: string, numKeys: number, ...args: RedisArg[]): RedisTransaction;
  /** One `[error, reply]` per command, or `null` when the transaction was aborted. */
  exec(): Promise<[Error | null, unknown][] | null>;
}

/**
 * ioredis options for a client the checkpointer creates from a URL. They make a lost connection fail
 * fast instead of queueing or replaying writes: a command in flight when the connection drops rejects at
 * once (a replayed conditional put could report a conflict for its own write), a command issued while
 * reconnecting waits for one reconnect attempt at most, and ioredis keeps reconnecting in the background,
 * so the same instance works again once the server is back. Query parameters of the URL override these.
 */
export const defaultClientOptions: Readonly<RedisOptions> = Object.freeze({
  lazyConnect: true,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 5_000,
  commandTimeout: 10_000,
});

/** A store URL taken apart: what ioredis gets, the key prefix, and the database number of the path. */
export interface StoreUrl {
  url: string;
  prefix: string | undefined;
  /** The logical database of the path (`redis://host/3` → 3); 0 when the path names none. */
  db: number;
}

/** The database of a URL path: '' or '/' is 0, '/N' is N; anything else is a mistake worth reporting. */
function databaseOf(url: URL): number {
  const path = url.pathname;
  if (path === '' || path === '/') return 0;
  const match = /^\/(\d{1,9})\/?$/.exec(path);
  if (match === null) {
    throw new InvalidArgumentError(
      `${flowPrefix('redis')}the path of a Redis URL is a database number (redis://host:6379/2), got ${JSON.stringify(path)}`,
    );
  }
  return Number(match[1]);
}

/** Splits `?prefix=` off a store URL and reads the database of its path; the rest goes to ioredis. */
export function parseStoreUrl(url: string): StoreUrl {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new InvalidArgumentError(`${flowPrefix('redis')}not a Redis URL: ${JSON.stringify(url)}`, {
      cause: error,
    });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new InvalidArgumentError(
      `${flowPrefix('redis')}a Redis URL starts with redis:// or rediss://, got ${JSON.stringify(parsed.protocol)}`,
    );
  }
  const db = databaseOf(parsed);
  const prefix = parsed.searchParams.get('prefix') ?? undefined;
  if (prefix === undefined) return { url, prefix, db };
  parsed.searchParams.delete('prefix');
  return { url: parsed.toString(), prefix, db };
}

/**
 * Selects database `db` on a client we created. ioredis selects the URL's database on connect, but when the
 * server has no such database it only emits an error and carries on in database 0; asking again here turns
 * that into a failed setup instead of writes landing in the wrong database.
 */
export async function selectDatabase(client: Redis, db: number): Promise<void> {
  try {
    await client.select(db);
  } catch (error) {
    if (error instanceof Error && /DB index is out of range/i.test(error.message)) {
      throw new StorageError(
        `${flowPrefix('redis')}the URL names database ${db}, which this Redis server does not have ` +
          `(its "databases" setting is lower): ${error.message}`,
        { cause: error },
      );
    }
    throw explainFailure(client, error);
  }
}

/** The latest connection error of each client we created, cleared when it is ready again. */
const connectionErrors = new WeakMap<object, Error>();

/** A client for `url` with `defaultClientOptions`. It connects on first use. */
export function createClient(url: string): Redis {
  const client = new Redis(url, { ...defaultClientOptions });
  // Failures reach callers through rejected commands; without a listener ioredis would also log each one.
  client.on('error', (error: Error) => connectionErrors.set(client, error));
  client.on('ready', () => connectionErrors.delete(client));
  return client;
}

/**
 * With `maxRetriesPerRequest: 0` a command sent while the server is unreachable fails with ioredis'
 * "Reached the max retries per request limit", which hides why. Name the connection error instead.
 */
export function explainFailure(client: object, error: unknown): unknown {
  const cause = connectionErrors.get(client);
  if (cause === undefined || !(error instanceof Error) || !/max retries per request/i.test(error.message))
    return error;
  return new Error(`cannot reach Redis: ${cause.message}`, { cause });
}

/** The part of an ioredis `Cluster` the checkpointer calls beyond a client's: its primaries, to load scripts. */
export interface RedisClusterClient extends RedisClient {
  readonly isCluster: true;
  nodes(role: 'master'): Pick<RedisClient, 'script'>[];
}

/** True for an ioredis `Cluster` (or anything shaped like one). */
export function isCluster(client: RedisClient): client is RedisClusterClient {
  return (client as { isCluster?: unknown }).isCluster === true;
}

/** Checks that `value` looks like an ioredis client: a `Redis`, or a `Cluster` with `nodes()`. */
export function assertClient(value: unknown): asserts value is RedisClient {
  const c = value as Partial<RedisClusterClient>;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof c.evalsha !== 'function' ||
    typeof c.multi !== 'function' ||
    typeof c.hdel !== 'function' ||
    typeof c.zrangebylex !== 'function' ||
    (c.isCluster === true && typeof c.nodes !== 'function')
  ) {
    throw new InvalidArgumentError(
      `${flowPrefix('redis')}RedisCheckpointer needs a redis:// URL or an ioredis client (Redis or Cluster)`,
    );
  }
}
