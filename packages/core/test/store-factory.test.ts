import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import { ifStoreExists, storeUrlPath, takeUrlParam } from '../src/store-factory.js';

describe('store factory helpers', () => {
  it('takeUrlParam takes one parameter off and keeps the others', () => {
    expect(takeUrlParam('postgres://u:p@h/db?sslmode=disable&schema=t1', 'schema')).toEqual({
      url: 'postgres://u:p@h/db?sslmode=disable',
      value: 't1',
    });
    expect(takeUrlParam('postgres://h/db', 'schema')).toEqual({ url: 'postgres://h/db', value: undefined });
    expect(() => takeUrlParam('postgres://h/db?schema=a&schema=b', 'schema')).toThrow(InvalidArgumentError);
    expect(() => takeUrlParam('not a url', 'schema')).toThrow(InvalidArgumentError);
  });

  it('storeUrlPath reads path-style URLs', () => {
    expect(storeUrlPath('sqlite:runs.db')).toBe('runs.db');
    expect(storeUrlPath('sqlite:///abs/runs.db')).toBe('/abs/runs.db');
    expect(storeUrlPath('sqlite://rel.db')).toBe('rel.db');
    expect(storeUrlPath('sqlite::memory:')).toBe(':memory:');
    expect(() => storeUrlPath('sqlite:')).toThrow(InvalidArgumentError);
  });

  it('ifStoreExists closes a store that does not exist', async () => {
    let closed = 0;
    const fake = (found: boolean | Error) =>
      ({
        exists: async () => {
          if (found instanceof Error) throw found;
          return found;
        },
        close: async () => {
          closed++;
        },
      }) as never;
    expect(await ifStoreExists(fake(true))).toBeDefined();
    expect(await ifStoreExists(fake(false))).toBeUndefined();
    await expect(ifStoreExists(fake(new Error('down')))).rejects.toThrow('down');
    expect(closed).toBe(2);
  });
});
