import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { findStoreFactory } from '../src/store/backend-registry.js';
import { openStore } from '../src/store/open-store.js';
import { maskStore, parseStoreUrl, resolveStoreUrl } from '../src/store/store-url.js';

describe('parseStoreUrl', () => {
  it('takes the scheme of a URL, and reads a bare .db path as sqlite', () => {
    expect(parseStoreUrl('sqlite:flow.db')).toMatchObject({ scheme: 'sqlite:', url: 'sqlite:flow.db' });
    expect(parseStoreUrl('Postgres://db/app')).toMatchObject({ scheme: 'postgres:' });
    expect(parseStoreUrl('mysql://db/app')).toMatchObject({ scheme: 'mysql:', url: 'mysql://db/app' });
    expect(parseStoreUrl('./data/runs.db')).toMatchObject({
      scheme: 'sqlite:',
      url: 'sqlite:./data/runs.db',
    });
    expect(parseStoreUrl('C:\\data\\runs.DB')).toMatchObject({
      scheme: 'sqlite:',
      url: 'sqlite:C:\\data\\runs.DB',
    });
    expect(() => parseStoreUrl('runs')).toThrow(UsageError);
  });

  it('never prints a password', () => {
    expect(parseStoreUrl('postgres://u:hunter2@db/app').display).toBe('postgres://u:***@db/app');
    expect(maskStore('redis://:pw@h:6379')).toBe('redis://:***@h:6379');
    expect(maskStore('redis://h:6379')).toBe('redis://h:6379');
  });
});

describe('store factories of the backends', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'flow-cli-factories-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('are found by scheme, aliases included', async () => {
    for (const scheme of ['sqlite:', 'file:', 'postgres:', 'postgresql:', 'redis:', 'rediss:']) {
      expect((await findStoreFactory(scheme, {})).schemes).toContain(scheme);
    }
  });

  it('read sqlite: and file: paths and URLs, and with mustExist create nothing', async () => {
    for (const url of [
      `sqlite://${dir}/a.db`,
      `sqlite:${dir}/b.db`,
      `file://${dir}/c%20d`,
      `file:${dir}/e`,
    ]) {
      await expect(openStore(parseStoreUrl(url), { mustExist: true })).rejects.toThrow(/^no store at /);
      const store = await openStore(parseStoreUrl(url));
      await store.setup();
      await store.close();
    }
    for (const path of ['a.db', 'b.db', 'c d', 'e']) expect(existsSync(join(dir, path)), path).toBe(true);
  });

  it('turn a malformed URL into a usage error, without the password', async () => {
    for (const bad of [
      'sqlite:',
      'file:',
      'postgres://u:hunter2@db/app?schema=1bad',
      'postgres://db/app?schema=a&schema=b',
      'redis://h?prefix=has space',
    ]) {
      const error = await openStore(parseStoreUrl(bad)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, bad).toBeInstanceOf(UsageError);
      expect(String(error)).not.toContain('hunter2');
    }
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
