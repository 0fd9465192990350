import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { freshStore } from './support/stores.js';

describe('thread ids on MySQL', () => {
  it('keeps ids that differ only in trailing spaces apart (utf8mb4_bin would merge them)', async () => {
    const store = freshStore();
    const ids = ['a', 'a ', 'a  ', 'a\t', 'A'];
    for (const [i, thread] of ids.entries()) {
      await store.put(new Checkpoint({ thread, step: 0, state: { i } }));
    }
    for (const [i, thread] of ids.entries()) {
      expect((await store.get(thread))?.state).toEqual({ i });
    }
    expect((await store.listThreads()).map((t) => t.thread)).toEqual(['A', 'a', 'a\t', 'a ', 'a  ']);
    expect(await store.deleteThread('a ')).toBe(1);
    expect(await store.get('a')).toBeDefined();
  });

  it('pages listThreads after an id with a trailing space and after one holding U+0000', async () => {
    const store = freshStore();
    for (const thread of ['b', 'b ', 'b!', 'c']) {
      await store.put(new Checkpoint({ thread, step: 0, state: null }));
    }
    expect((await store.listThreads({ after: 'b ' })).map((t) => t.thread)).toEqual(['b!', 'c']);
    expect((await store.listThreads({ after: 'b\u0000' })).map((t) => t.thread)).toEqual(['b ', 'b!', 'c']);
  });
});
