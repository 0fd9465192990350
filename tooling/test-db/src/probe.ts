import { Redis } from 'ioredis';
import pg from 'pg';
import { withDeadline } from './deadline.js';

/** How long a probe waits for a server before it gives up. */
export const PROBE_TIMEOUT_MS = 2000;

/** Resolves when a Postgres server at `url` accepts a connection and answers `SELECT 1`; rejects otherwise. */
export async function probePostgres(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // A connection dropped after connect() emits 'error' on the client; without a listener it would crash.
  client.on('error', () => {});
  const work = (async () => {
    await client.connect();
    await client.query('SELECT 1');
  })();
  try {
    await withDeadline(work, timeoutMs + 250, () => {
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    });
  } finally {
    work.catch(() => {});
    await client.end().catch(() => {});
  }
}

/** Resolves when a Redis server at `url` answers `PING`; rejects otherwise. */
export async function probeRedis(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  const work = (async () => {
    await client.connect();
    await client.ping();
  })();
  try {
    await withDeadline(work, timeoutMs + 250, () => client.disconnect());
  } finally {
    work.catch(() => {});
    client.disconnect();
  }
}
