import { Checkpoint, isFlowError } from '@flow/core';
import { Cluster } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisCheckpointer } from '../src/index.js';
import { ProbeCheckpointer } from './support/probe-checkpointer.js';
import { freshPrefix, plainClient, redisUrl } from './support/stores.js';

const cp0 = (thread: string) => new Checkpoint({ thread, step: 0, state: { thread } });

describe('client ownership', () => {
  it('leaves a client passed in open after close()', async () => {
    const client = plainClient();
    const cp = new RedisCheckpointer(client, { prefix: freshPrefix() });
    await cp.put(cp0('t'));
    await cp.close();
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
    // The checkpointer itself is closed, the client is not.
    await expect(cp.get('t')).rejects.toMatchObject({ code: 'STORAGE' });
  });

  it('does not add commands or listeners to a client passed in', async () => {
    const client = plainClient();
    await client.ping();
    const before = { keys: Object.keys(client).sort(), error: client.listenerCount('error') };
    const cp = new RedisCheckpointer(client, { prefix: freshPrefix() });
    await cp.put(cp0('t'));
    await cp.close();
    expect({ keys: Object.keys(client).sort(), error: client.listenerCount('error') }).toEqual(before);
  });

  it('quits the client it created from a URL on close()', async () => {
    const cp = new ProbeCheckpointer(redisUrl, { prefix: freshPrefix() });
    await cp.put(cp0('t'));
    expect(cp.connection.status).toBe('ready');
    await cp.close();
    expect(cp.connection.status).toBe('end');
  });

  it('creates no connection until first used, and close() of an unused one is immediate', async () => {
    const cp = new ProbeCheckpointer(redisUrl, { prefix: freshPrefix() });
    expect(cp.connection.status).toBe('wait');
    await cp.close();
    expect(cp.connection.status).toBe('end');
  });

  it('rejects a non-client and a URL of another scheme with InvalidArgumentError, and takes a Cluster', () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true });
    try {
      expect(new RedisCheckpointer(cluster).prefix).toBe('flow');
      for (const bad of [{}, null, 42, 'http://127.0.0.1:6379', 'not a url']) {
        let thrown: unknown;
        try {
          new RedisCheckpointer(bad as never);
        } catch (error) {
          thrown = error;
        }
        expect(isFlowError(thrown, 'INVALID_ARGUMENT'), String(bad)).toBe(true);
      }
    } finally {
      cluster.disconnect();
    }
  });
});
