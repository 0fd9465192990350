import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { maskStore, parseStoreUrl, resolveStoreUrl } from '../src/store/store-url.js';

describe('parseStoreUrl', () => {
  it('reads sqlite: URLs and bare .db paths', () => {
    expect(parseStoreUrl('sqlite:flow.db')).toMatchObject({ kind: 'sqlite', target: 'flow.db' });
    expect(parseStoreUrl('sqlite:/var/lib/app/runs.sqlite')).toMatchObject({
      target: '/var/lib/app/runs.sqlite',
    });
    expect(parseStoreUrl('sqlite:///abs/x.db')).toMatchObject({ target: '/abs/x.db' });
    expect(parseStoreUrl('sqlite::memory:')).toMatchObject({ target: ':memory:' });
    expect(parseStoreUrl('./data/runs.db')).toMatchObject({ kind: 'sqlite', target: './data/runs.db' });
    expect(parseStoreUrl('C:\\data\\runs.DB')).toMatchObject({ kind: 'sqlite', target: 'C:\\data\\runs.DB' });
  });

  it('reads file: paths and file:// URLs', () => {
    expect(parseStoreUrl('file:./runs')).toMatchObject({ kind: 'file', target: './runs' });
    expect(parseStoreUrl('file:///tmp/runs%20x')).toMatchObject({ kind: 'file', target: '/tmp/runs x' });
  });

  it('strips ?schema= from a postgres URL and keeps the other parameters', () => {
    const spec = parseStoreUrl('postgres://u:secret@db:5432/app?sslmode=disable&schema=tenant_1');
    expect(spec).toMatchObject({
      kind: 'postgres',
      schema: 'tenant_1',
      target: 'postgres://u:secret@db:5432/app?sslmode=disable',
      display: 'postgres://u:***@db:5432/app?sslmode=disable&schema=tenant_1',
    });
    expect(parseStoreUrl('postgresql://db/app')).toMatchObject({
      kind: 'postgres',
      target: 'postgresql://db/app',
    });
    expect(parseStoreUrl('postgresql://db/app').schema).toBeUndefined();
  });

  it('strips ?prefix= from a redis URL', () => {
    expect(parseStoreUrl('redis://127.0.0.1:6379/2?prefix=app:flow')).toMatchObject({
      kind: 'redis',
      prefix: 'app:flow',
      target: 'redis://127.0.0.1:6379/2',
    });
    expect(parseStoreUrl('rediss://h:6380')).toMatchObject({ kind: 'redis', target: 'rediss://h:6380' });
  });

  it('rejects unknown schemes, empty paths and invalid schema or prefix names as usage errors', () => {
    for (const bad of [
      'mysql://db/app',
      'runs',
      'http://x/y.db',
      'sqlite:',
      'file:',
      'postgres://db/app?schema=1bad',
      'postgres://db/app?schema=a&schema=b',
      'redis://h?prefix=has space',
    ]) {
      expect(() => parseStoreUrl(bad), bad).toThrow(UsageError);
    }
  });

  it('never prints a password in its messages', () => {
    expect(() => parseStoreUrl('postgres://u:hunter2@db/app?schema=-')).toThrow(/u:\*\*\*@db/);
    expect(maskStore('redis://:pw@h:6379')).toBe('redis://:***@h:6379');
    expect(maskStore('redis://h:6379')).toBe('redis://h:6379');
  });
});

describe('resolveStoreUrl', () => {
  it('takes --store, then FLOW_STORE, then sqlite:flow.db', () => {
    expect(resolveStoreUrl('file:a', { FLOW_STORE: 'file:b' })).toBe('file:a');
    expect(resolveStoreUrl(undefined, { FLOW_STORE: 'file:b' })).toBe('file:b');
    expect(resolveStoreUrl(undefined, { FLOW_STORE: '' })).toBe('sqlite:flow.db');
    expect(resolveStoreUrl(undefined, {})).toBe('sqlite:flow.db');
  });
});
