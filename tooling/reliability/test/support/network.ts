import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { defaultClientOptions, RedisCheckpointer } from '@flow/checkpoint-redis';
import type { Checkpointer } from '@flow/core';
import { type FaultProxy, startFaultProxy } from '@flow/fault-proxy';
import { Redis } from 'ioredis';
import { type Store, serverUrls } from './stores.js';

export type NetworkBackend = 'postgres' | 'redis';

/** A fault proxy in front of this run's server of `backend`. */
export function proxyFor(backend: NetworkBackend): Promise<FaultProxy> {
  const url = new URL(serverUrls()[backend]);
  const port = Number(url.port || (backend === 'postgres' ? 5432 : 6379));
  return startFaultProxy({ target: { host: url.hostname, port } });
}

/**
 * A checkpointer on `store`'s storage whose every connection goes through `proxy`, with a short timeout:
 * Postgres through the `queryTimeout` option, Redis through ioredis' `commandTimeout` on a client of our
 * own (the README's way to change a client option). `close()` also ends the client.
 */
export function throughProxy(store: Store, proxy: FaultProxy, timeoutMs: number): Checkpointer {
  if (store.backend === 'postgres') {
    const url = new URL(serverUrls().postgres);
    url.hostname = proxy.host;
    url.port = String(proxy.port);
    return new PostgresCheckpointer(url.toString(), { schema: store.location, queryTimeout: timeoutMs });
  }
  if (store.backend === 'redis') {
    const url = new URL(serverUrls().redis);
    const client = new Redis({
      ...defaultClientOptions,
      host: proxy.host,
      port: proxy.port,
      password: url.password || undefined,
      commandTimeout: timeoutMs,
    });
    client.on('error', () => {});
    const cp = new RedisCheckpointer(client, { prefix: store.location });
    const close = cp.close.bind(cp);
    cp.close = async () => {
      await close();
      client.disconnect();
    };
    return cp;
  }
  throw new Error(`${store.backend} is not behind a network`);
}
