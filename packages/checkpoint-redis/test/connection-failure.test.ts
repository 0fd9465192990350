import { Checkpoint, isFlowError, StorageError } from '@flow/core';
import { startFaultProxy } from '@flow/fault-proxy';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { defaultClientOptions, RedisCheckpointer } from '../src/index.js';
import { ProbeCheckpointer } from './support/probe-checkpointer.js';
import { freshPrefix, plainClient, redisUrl } from './support/stores.js';

const at = (thread: string, step: number) => new Checkpoint({ thread, step, state: { step }, next: ['n'] });

/** Resolves with what `promise` rejected with; fails the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('connection failures', () => {
  it('CLIENT KILL of the connection: the put in flight is a StorageError with cause, not replayed, and the instance recovers', async () => {
    const prefix = freshPrefix();
    const cp = new ProbeCheckpointer(redisUrl, { prefix });
    try {
      await cp.put(at('t', 0));
      const id = await cp.connection.client('ID');
      // A BLPOP nobody answers holds the connection, so the put queued behind it is surely in flight when killed.
      const blocker = cp.connection.blpop(`${prefix}:test|block`, 0).catch(() => undefined);
      const inFlight = rejection(cp.put(at('t', 1)));
      await new Promise((r) => setTimeout(r, 50));
      expect(await plainClient().client('KILL', 'ID', id)).toBe(1);
      const error = await inFlight;
      expect(error).toBeInstanceOf(StorageError);
      expect(isFlowError(error, 'STORAGE')).toBe(true);
      expect((error as StorageError).cause).toBeInstanceOf(Error);
      expect((error as StorageError).message).toMatch(/^\[flow:redis\] put failed on thread "t"/);
      await blocker;
      // Same instance, new connection: it works, and the killed put was neither applied nor replayed.
      expect((await cp.put(at('t', 2))).revision).toBe(1);
      expect(await cp.get('t', 1)).toBeUndefined();
      expect((await cp.list('t')).map((c) => c.step)).toEqual([2, 0]);
    } finally {
      await cp.close();
    }
  });

  it('fails promptly with StorageError when nothing listens, and close() still resolves', async () => {
    const cp = new ProbeCheckpointer('redis://127.0.0.1:1', { prefix: freshPrefix() });
    const started = Date.now();
    const error = await rejection(cp.put(at('t', 0)));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(isFlowError(error, 'STORAGE')).toBe(true);
    expect((error as StorageError).cause).toBeInstanceOf(Error);
    // The message names the connection failure, not ioredis' retry counter.
    expect((error as StorageError).message).toMatch(/cannot reach Redis: .*ECONNREFUSED/);
    await cp.close();
  });

  it('works again on the same instance once the server is reachable again', async () => {
    const { hostname, port } = new URL(redisUrl);
    const proxy = await startFaultProxy({ target: { host: hostname, port: Number(port || 6379) } });
    const url = new URL(redisUrl);
    url.host = `127.0.0.1:${proxy.port}`;
    const cp = new ProbeCheckpointer(url.toString(), { prefix: freshPrefix() });
    try {
      await cp.put(at('t', 0));
      proxy.refuse(true);
      proxy.cut();
      const started = Date.now();
      const error = await rejection(cp.put(at('t', 1)));
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(isFlowError(error, 'STORAGE')).toBe(true);
      await expect(cp.listThreads()).rejects.toMatchObject({ code: 'STORAGE' });
      proxy.heal();
      // ioredis reconnects in the background (backing off up to 2 s); the next calls go through.
      let stored: Checkpoint | undefined;
      const deadline = Date.now() + 5_000;
      while (stored === undefined) {
        try {
          stored = await cp.put(at('t', 1));
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      expect(stored.revision).toBe(1);
      expect((await cp.list('t')).map((c) => c.step)).toEqual([1, 0]);
    } finally {
      await cp.close();
      await proxy.close();
    }
  });

  it('a silent server (stalled link) fails the call at commandTimeout; the write may still land later', async () => {
    const { hostname, port } = new URL(redisUrl);
    const proxy = await startFaultProxy({ target: { host: hostname, port: Number(port || 6379) } });
    const client = new Redis({
      ...defaultClientOptions,
      host: '127.0.0.1',
      port: proxy.port,
      commandTimeout: 300,
    });
    client.on('error', () => {});
    const cp = new RedisCheckpointer(client, { prefix: freshPrefix() });
    try {
      await cp.put(at('t', 0));
      proxy.stall(true);
      const started = Date.now();
      const error = await rejection(cp.put(at('t', 1)));
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(isFlowError(error, 'STORAGE')).toBe(true);
      expect((error as StorageError).cause).toBeInstanceOf(Error);
      proxy.stall(false);
      // The command was only held, not lost: once the link moves it is applied. A StorageError from a write
      // means "outcome unknown", which is why the README says to read the step back.
      await expect.poll(async () => (await cp.get('t', 1))?.revision, { timeout: 3_000 }).toBe(1);
    } finally {
      await cp.close();
      client.disconnect();
      await proxy.close();
    }
  });
});
