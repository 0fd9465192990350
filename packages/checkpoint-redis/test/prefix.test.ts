import { Checkpoint, isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { RedisCheckpointer } from '../src/index.js';
import { keyPatterns } from '../src/keys.js';
import { checkpointer, freshPrefix, keysOf, plainClient, redisUrl } from './support/stores.js';

const HOSTILE_PREFIXES: unknown[] = [
  '',
  'x'.repeat(65),
  'a b',
  'a*',
  'a?',
  'a[bc]',
  'a{tag}',
  'a|b',
  'a\\b',
  'a\r\nFLUSHALL',
  'a\nDEL x',
  "a'b",
  'a"b',
  'ü',
  'a\u0000',
  42,
  null,
];

function checkpoint(thread: string, step: number, state: unknown): Checkpoint {
  return new Checkpoint({ thread, step, state, next: ['n'] });
}

describe('prefix validation', () => {
  it.each(HOSTILE_PREFIXES.map((p) => [JSON.stringify(p), p]))(
    'rejects prefix %s with InvalidArgumentError before connecting',
    (_, prefix) => {
      let thrown: unknown;
      try {
        new RedisCheckpointer('redis://127.0.0.1:1', { prefix: prefix as string });
      } catch (error) {
        thrown = error;
      }
      expect(isFlowError(thrown, 'INVALID_ARGUMENT')).toBe(true);
    },
  );

  it('rejects a hostile prefix given in the URL', () => {
    expect(() => new RedisCheckpointer('redis://127.0.0.1:1/?prefix=a*')).toThrow(/prefix must match/);
  });

  it('accepts the whole allowed alphabet and defaults to "flow"', async () => {
    const client = plainClient();
    expect(new RedisCheckpointer(client).prefix).toBe('flow');
    expect(new RedisCheckpointer(client, { prefix: 'Az09_:.-' }).prefix).toBe('Az09_:.-');
  });
});

describe('prefix isolation', () => {
  it('keeps a prefix, a longer prefix and one that looks like a kind apart', async () => {
    const base = freshPrefix();
    const prefixes = [base, `${base}:x`, `${base}:cp`, `${base}:idx`];
    const stores = prefixes.map((prefix) => checkpointer({ prefix }));
    // The same thread ids in every store, with states saying which store wrote them.
    for (const [i, store] of stores.entries()) {
      await store.put(checkpoint('t', 0, { store: i }));
      await store.put(checkpoint('all', 0, { store: i }));
      await store.put(checkpoint(`only-${i}`, 0, { store: i }));
    }
    for (const [i, store] of stores.entries()) {
      expect((await store.get('t'))?.state).toEqual({ store: i });
      expect((await store.listThreads()).map((t) => t.thread)).toEqual(['all', `only-${i}`, 't']);
    }
    expect(await stores[0]!.deleteThread('t')).toBe(1);
    expect(await stores[0]!.get('t')).toBeUndefined();
    for (const store of stores.slice(1)) expect(await store.get('t')).toBeDefined();
  });

  it('names exactly one prefix with keyPatterns, never a longer one', async () => {
    const base = freshPrefix();
    const [short, long] = [checkpointer({ prefix: base }), checkpointer({ prefix: `${base}:cp` })];
    await short.put(checkpoint('t', 0, 1));
    await long.put(checkpoint('t', 0, 2));
    const admin = plainClient();
    const matched: string[] = [];
    for (const pattern of keyPatterns(base)) matched.push(...(await admin.keys(pattern)));
    const all = await keysOf(admin, base);
    expect(matched.sort()).toEqual(all.filter((k) => !k.startsWith(`${base}:cp:`)));
    expect(matched.every((k) => k.startsWith(`${base}:`) && !k.startsWith(`${base}:cp:`))).toBe(true);
  });

  it('takes the prefix from ?prefix= in the URL', async () => {
    const prefix = freshPrefix();
    await checkpointer({ prefix }).put(checkpoint('t', 0, 'from options'));
    const url = new URL(redisUrl);
    url.searchParams.set('prefix', prefix);
    const viaUrl = new RedisCheckpointer(url.toString());
    try {
      expect(viaUrl.prefix).toBe(prefix);
      expect((await viaUrl.get('t'))?.state).toBe('from options');
    } finally {
      await viaUrl.close();
    }
  });

  it('rejects a URL prefix that contradicts the prefix option', () => {
    expect(() => new RedisCheckpointer('redis://127.0.0.1:1/?prefix=a', { prefix: 'b' })).toThrow(
      /URL says prefix "a" but options say "b"/,
    );
  });
});
