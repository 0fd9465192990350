import { Checkpoint, isFlowError } from '@flow/core';
import { deleteKeys } from '@flow/test-db';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisCheckpointer } from '../src/index.js';
import { freshPrefix, keysOf, plainClient, redisUrl } from './support/stores.js';

function withDatabase(db: number | string, prefix: string): string {
  const url = new URL(redisUrl);
  url.pathname = `/${db}`;
  url.searchParams.set('prefix', prefix);
  return url.toString();
}

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(() => Promise.all(cleanups.map((fn) => fn())));

async function databaseCount(): Promise<number> {
  const [, count] = (await plainClient().config('GET', 'databases')) as [string, string];
  return Number(count);
}

const done = (thread: string) => new Checkpoint({ thread, step: 0, state: { ok: true }, next: [] });

describe('the database in the URL path', () => {
  it('writes to the database the path names, not database 0', async () => {
    const prefix = freshPrefix();
    const url = withDatabase(2, prefix);
    cleanups.push(() => deleteKeys(url, prefix));
    const store = new RedisCheckpointer(url);
    await store.put(done('t'));
    await store.close();
    const db2 = plainClient();
    await db2.select(2);
    expect(await keysOf(db2, prefix)).toContain(`${prefix}:cp|t`);
    expect(await keysOf(plainClient(), prefix)).toEqual([]);
  });

  it('fails with StorageError naming a database the server does not have, and writes nowhere', async () => {
    const missing = await databaseCount();
    const prefix = freshPrefix();
    const store = new RedisCheckpointer(withDatabase(missing, prefix));
    const failure = await store.put(done('t')).catch((error: unknown) => error);
    await store.close();
    expect(isFlowError(failure, 'STORAGE')).toBe(true);
    expect((failure as Error).message).toContain(`database ${missing}`);
    expect((failure as Error).message).toMatch(/DB index is out of range/);
    expect(await keysOf(plainClient(), prefix)).toEqual([]);
  });

  it.each(['abc', '-1', '1/2', '1.5'])('rejects the path /%s with InvalidArgumentError', (path) => {
    expect(() => new RedisCheckpointer(withDatabase(path, 'x'))).toThrow(/database number/);
    try {
      new RedisCheckpointer(withDatabase(path, 'x'));
    } catch (error) {
      expect(isFlowError(error, 'INVALID_ARGUMENT')).toBe(true);
    }
  });
});

describe('create: false', () => {
  it('opens no store where there is none: exists() is false, calls reject, nothing is written', async () => {
    const prefix = freshPrefix();
    const store = new RedisCheckpointer(redisUrl, { prefix, create: false });
    expect(await store.exists()).toBe(false);
    const failure = await store.listThreads().catch((error: unknown) => error);
    expect(isFlowError(failure, 'STORAGE')).toBe(true);
    expect((failure as Error).message).toMatch(/no store under prefix/);
    await expect(store.put(done('t'))).rejects.toThrow(/no store under prefix/);
    await store.close();
    expect(await keysOf(plainClient(), prefix)).toEqual([]);
  });

  it('opens a store that exists', async () => {
    const prefix = freshPrefix();
    const writer = new RedisCheckpointer(redisUrl, { prefix });
    await writer.put(done('t'));
    await writer.close();
    const reader = new RedisCheckpointer(redisUrl, { prefix, create: false });
    expect(await reader.exists()).toBe(true);
    expect((await reader.listThreads()).map((t) => t.thread)).toEqual(['t']);
    await reader.close();
  });

  it('exists() is false in another database than the one holding the store', async () => {
    const prefix = freshPrefix();
    const writer = new RedisCheckpointer(redisUrl, { prefix });
    await writer.setup();
    await writer.close();
    const elsewhere = new RedisCheckpointer(withDatabase(3, prefix), { create: false });
    expect(await elsewhere.exists()).toBe(false);
    await elsewhere.close();
  });

  it('rejects a create option that is not a boolean', () => {
    expect(() => new RedisCheckpointer(redisUrl, { create: 'no' as unknown as boolean })).toThrow(
      /create must be a boolean/,
    );
  });
});
