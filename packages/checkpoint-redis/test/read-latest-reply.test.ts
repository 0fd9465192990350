import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { keyLayout, threadKeys } from '../src/keys.js';
import { READ_LATEST } from '../src/scripts.js';
import { checkpointer, freshPrefix, plainClient } from './support/stores.js';

const admin = plainClient();

/** READ_LATEST's reply for `thread` under `prefix`, as a get sends it. */
function latestReply(prefix: string, thread: string) {
  const keys = keyLayout(prefix);
  const [checkpoints, , head] = threadKeys(keys, thread);
  return admin.evalsha(
    READ_LATEST.sha,
    3,
    checkpoints,
    keys.chunks(thread),
    head,
    keys.statePrefix(thread),
    thread,
  );
}

// ioredis spends CPU on every element of a reply: the usual step comes back as one string.
describe("READ_LATEST's reply", () => {
  it('is `<step> <packed field>` for a whole small state, and what get answers is what list does', async () => {
    const prefix = freshPrefix();
    const cp = checkpointer({ prefix });
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: { n: 0 }, next: ['a'] }));
    await cp.put(new Checkpoint({ thread: 't', step: 1, state: { n: 1 }, next: ['a'], interrupted: true }));
    const packed = await admin.hget(threadKeys(keyLayout(prefix), 't')[0], '1');
    expect(await latestReply(prefix, 't')).toBe(`1 ${packed}`);
    expect((await cp.get('t'))?.toJSON()).toEqual((await cp.list('t', { limit: 1 }))[0]?.toJSON());
    expect(await latestReply(prefix, 'none')).toEqual([[], []]);
  });

  it('keeps the groups of READ for a state with chunk refs and for a large state in a key of its own', async () => {
    const prefix = freshPrefix();
    const cp = checkpointer({ prefix });
    const log = Array.from({ length: 40 }, (_, i) => `line ${i} `.repeat(10));
    await cp.put(new Checkpoint({ thread: 'linear', step: 0, state: { log } }));
    await cp.put(new Checkpoint({ thread: 'linear', step: 1, state: { log: [...log, 'more'] } }));
    const whole = checkpointer({ prefix, stateStorage: 'whole' });
    await whole.put(new Checkpoint({ thread: 'large', step: 0, state: { big: 'x'.repeat(100_000) } }));

    for (const [store, thread] of [
      [cp, 'linear'],
      [whole, 'large'],
    ] as const) {
      expect(Array.isArray(await latestReply(prefix, thread))).toBe(true);
      expect((await store.get(thread))?.toJSON()).toEqual(
        (await store.list(thread, { limit: 1 }))[0]?.toJSON(),
      );
    }
    expect((await cp.get('linear'))?.state).toEqual({ log: [...log, 'more'] });
  });
});
