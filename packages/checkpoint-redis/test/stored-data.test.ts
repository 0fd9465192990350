import { Checkpoint, type CorruptCheckpointError, isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { RedisCheckpointer } from '../src/index.js';
import { keyLayout } from '../src/keys.js';
import { rewindToLayout5, rewindToLayout6 } from './support/earlier-layouts.js';
import { editPacked } from './support/packed-step.js';
import { checkpointer, freshPrefix, plainClient, redisUrl } from './support/stores.js';

const at = (thread: string, step: number) => new Checkpoint({ thread, step, state: { step }, next: ['n'] });

describe('stored data', () => {
  it('records the layout version on setup and refuses a prefix written by another version', async () => {
    const prefix = freshPrefix();
    const admin = plainClient();
    await checkpointer({ prefix }).setup();
    expect(await admin.get(`${prefix}:meta|format`)).toBe('7');
    const other = freshPrefix();
    await admin.set(`${other}:meta|format`, '1');
    const cp = new RedisCheckpointer(redisUrl, { prefix: other });
    try {
      await expect(cp.put(at('t', 0))).rejects.toMatchObject({
        code: 'STORAGE',
        message: expect.stringMatching(/layout version 1\b.*reads version 7/),
      });
      expect(await admin.exists(`${other}:cp|t`)).toBe(0);
    } finally {
      await cp.close();
    }
  });

  it('reports a damaged checkpoint as CorruptCheckpointError naming its key; other threads stay readable', async () => {
    const cp = checkpointer();
    await cp.put(at('bad', 0));
    await cp.put(at('bad', 1));
    await cp.put(at('good', 0));
    await plainClient().hset(`${cp.prefix}:cp|bad`, '0', 'not json');
    const error = await cp.get('bad', 0).catch((e: unknown) => e);
    expect(isFlowError(error, 'CORRUPT_CHECKPOINT')).toBe(true);
    expect((error as CorruptCheckpointError).location).toBe(`key "${cp.prefix}:cp|bad" step 0`);
    await expect(cp.list('bad')).rejects.toMatchObject({ code: 'CORRUPT_CHECKPOINT' });
    expect((await cp.get('bad'))?.step).toBe(1);
    expect((await cp.get('good'))?.state).toEqual({ step: 0 });
    expect(await cp.listThreads()).toHaveLength(2);
  });

  it('reports a damaged state through the serializer as CorruptCheckpointError', async () => {
    const cp = checkpointer();
    await cp.put(at('t', 0));
    await editPacked(plainClient(), `${cp.prefix}:cp|t`, 0, 'state', (text) => text.slice(0, -3));
    await expect(cp.get('t')).rejects.toMatchObject({ code: 'CORRUPT_CHECKPOINT' });
  });

  it('keeps a small state in the field of its step and a large one in a key of its own, never both', async () => {
    // Whole states: with chunks, a large state's own text is small (chunks: chunks.test.ts).
    const cp = checkpointer({ stateStorage: 'whole' });
    const admin = plainClient();
    const large = { text: 'x'.repeat(40_000) };
    const where = async (step: number) => ({
      field: (await admin.hget(`${cp.prefix}:cp|t`, String(step)))?.split(' ')[2] === 's' ? 1 : 0,
      key: await admin.exists(`${cp.prefix}:st|${step}|t`),
    });
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: { small: true }, next: ['n'] }));
    await cp.put(new Checkpoint({ thread: 't', step: 1, state: large, next: ['n'] }));
    expect([await where(0), await where(1)]).toEqual([
      { field: 1, key: 0 },
      { field: 0, key: 1 },
    ]);
    // The same step rewritten with a state of the other size moves it, and reads see the new one.
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: large, next: ['n'] }));
    await cp.put(new Checkpoint({ thread: 't', step: 1, state: { small: 1 }, next: ['n'] }));
    expect([await where(0), await where(1)]).toEqual([
      { field: 0, key: 1 },
      { field: 1, key: 0 },
    ]);
    expect((await cp.list('t')).map((c) => c.state)).toEqual([{ small: 1 }, large]);
    await expect(
      cp.put(new Checkpoint({ thread: 't', step: 2, state: large }), { ifRevision: 3 }),
    ).rejects.toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
    expect(await admin.exists(`${cp.prefix}:in|t`, `${cp.prefix}:st|2|t`)).toBe(0);
    expect(await cp.prune('t', { beforeStep: 1 })).toBe(1);
    expect(await where(0)).toEqual({ field: 0, key: 0 });
    await cp.put(new Checkpoint({ thread: 't', step: 2, state: large }));
    expect(await cp.deleteThread('t')).toBe(2);
    expect(await admin.keys(`${cp.prefix}:*`)).toEqual([`${cp.prefix}:meta|format`]);
  });

  it('reports a damaged large state (a key of its own) as CorruptCheckpointError', async () => {
    const cp = checkpointer({ stateStorage: 'whole' });
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: { text: 'x'.repeat(40_000) } }));
    await plainClient().set(`${cp.prefix}:st|0|t`, '{"truncated');
    await expect(cp.get('t')).rejects.toMatchObject({ code: 'CORRUPT_CHECKPOINT' });
    await plainClient().del(`${cp.prefix}:st|0|t`);
    await expect(cp.get('t')).rejects.toMatchObject({
      code: 'CORRUPT_CHECKPOINT',
      message: /state field is missing/,
    });
  });

  it('reports a damaged thread summary as CorruptCheckpointError naming its index and thread', async () => {
    const cp = checkpointer();
    const admin = plainClient();
    await cp.put(at('t', 0));
    const index = `${cp.prefix}:idx|all`;
    const [member] = await admin.zrange(index, 0, -1);
    await admin.zrem(index, member!);
    await admin.zadd(index, 0, 't\u00000 sleeping 2026-01-01T00:00:00.000Z');
    await expect(cp.listThreads()).rejects.toMatchObject({
      code: 'CORRUPT_CHECKPOINT',
      location: `key "${index}" thread "t"`,
    });
    // A bare id (an index of layout 3, written after the move by a process of the earlier release).
    await admin.del(index);
    await admin.zadd(index, 0, 't');
    await expect(cp.listThreads()).rejects.toMatchObject({ code: 'CORRUPT_CHECKPOINT' });
  });

  it.each(['2', '3', '4'])(
    'moves a prefix of layout %s to 7 in setup() and reads its data as it is',
    async (from) => {
      const prefix = freshPrefix();
      const admin = plainClient();
      const writer = checkpointer({ prefix });
      const error = { node: 'fetch', message: 'it broke, "badly" \u0000' };
      await writer.put(new Checkpoint({ thread: 'run', step: 0, state: { n: 0 }, next: ['a'] }));
      await writer.put(new Checkpoint({ thread: 'end', step: 0, state: { n: 1 }, next: [] }));
      await writer.put(new Checkpoint({ thread: 'ask', step: 0, state: { n: 2 }, interrupted: true }));
      if (from !== '2')
        await writer.put(new Checkpoint({ thread: 'bad', step: 2, state: {}, next: ['a'], error }));
      const before = await writer.listThreads();
      for (const t of before) await rewindToLayout5(admin, keyLayout(prefix), t.thread);
      // Rewind the indexes and summaries to layout 4 (3 had the same): bare thread ids as members, no summary text.
      for (const status of ['all', 'running', 'interrupted', 'done', 'failed']) {
        const key = `${prefix}:idx|${status}`;
        const members = await admin.zrange(key, 0, -1);
        await admin.del(key);
        for (const m of members) await admin.zadd(key, 0, m.slice(0, m.indexOf('\u0000')));
      }
      for (const t of before) await admin.hdel(`${prefix}:head|${t.thread}`, 'i');
      if (from === '2') {
        // And further to layout 2: no summary meta, no error or meta in the record's meta JSON.
        for (const thread of ['run', 'end', 'ask']) {
          await admin.hdel(`${prefix}:head|${thread}`, 'm');
          const meta = JSON.parse((await admin.hget(`${prefix}:cp|${thread}`, '0:m'))!) as Record<
            string,
            unknown
          >;
          delete meta.error;
          delete meta.meta;
          await admin.hset(`${prefix}:cp|${thread}`, '0:m', JSON.stringify(meta));
        }
      }
      await admin.set(`${prefix}:meta|format`, from);
      const reader = checkpointer({ prefix });
      const threads = await reader.listThreads();
      expect(await admin.get(`${prefix}:meta|format`)).toBe('7');
      expect(threads).toEqual(before);
      expect(threads.map((t) => [t.thread, t.done, t.interrupted, t.failed, t.error])).toEqual([
        ['ask', false, true, false, null],
        ...(from !== '2' ? [['bad', false, false, true, error]] : []),
        ['end', true, false, false, null],
        ['run', false, false, false, null],
      ]);
      expect((await reader.listThreads({ status: 'running' })).map((t) => t.thread)).toEqual(['run']);
      expect(await reader.listThreads({ after: 'ask' })).toEqual(before.slice(1));
      const cp = await reader.get('run');
      expect([cp?.error, cp?.meta, cp?.state]).toEqual([null, {}, { n: 0 }]);
      // A put after the move replaces the thread's members; a delete removes them.
      await reader.put(new Checkpoint({ thread: 'run', step: 1, state: {}, next: [] }));
      expect((await reader.listThreads({ status: 'done' })).map((t) => t.thread)).toEqual(['end', 'run']);
      expect(await reader.listThreads({ status: 'running' })).toEqual([]);
      await reader.deleteThread('run');
      expect((await reader.listThreads()).map((t) => t.thread)).not.toContain('run');
    },
  );

  it('moves a prefix of layout 3 to 7 in setup(): its whole states read as they are, next to linear ones', async () => {
    const prefix = freshPrefix();
    const admin = plainClient();
    const writer = checkpointer({ prefix });
    const old = { n: 0, notes: 'layout 3' };
    await writer.put(new Checkpoint({ thread: 't', step: 0, state: old, next: ['a'] }));
    await rewindToLayout5(admin, keyLayout(prefix), 't');
    // Layout 3 stored exactly this: no N:f field, no chunks hash.
    expect(await admin.hexists(`${prefix}:cp|t`, '0:f')).toBe(0);
    await admin.set(`${prefix}:meta|format`, '3');
    const reader = checkpointer({ prefix });
    expect((await reader.get('t'))?.state).toEqual(old);
    expect(await admin.get(`${prefix}:meta|format`)).toBe('7');
    const grown = { n: 1, items: Array.from({ length: 400 }, (_, i) => ({ i, text: 'y'.repeat(40) })) };
    await reader.put(new Checkpoint({ thread: 't', step: 1, state: grown, next: ['a'] }));
    expect((await reader.list('t')).map((c) => c.state)).toEqual([grown, old]);
  });

  it('moves a prefix of layout 5 to 7 in setup(): steps of six fields read, overwrite and prune as they are', async () => {
    const prefix = freshPrefix();
    const admin = plainClient();
    const keys = keyLayout(prefix);
    const cpKey = keys.checkpoints('t');
    const writer = checkpointer({ prefix });
    // Linear states: each step references chunks (N:f once rewound).
    const states = [0, 1, 2].map((n) => ({
      n,
      items: Array.from({ length: 400 + 10 * n }, (_, i) => ({ i, text: 'y'.repeat(40) })),
    }));
    for (const [step, state] of states.entries()) {
      await writer.put(new Checkpoint({ thread: 't', step, state, next: ['a'] }));
    }
    const listed = await writer.listThreads();
    const members = await admin.zrange(`${prefix}:idx|all`, 0, -1);
    await rewindToLayout5(admin, keys, 't');
    const fields = await admin.hkeys(cpKey);
    expect(fields.filter((f) => !f.includes(':'))).toEqual([]);
    expect(fields).toEqual(expect.arrayContaining(['0:r', '0:t', '0:m', '0:s', '0:p', '1:f', '2:f']));
    await admin.set(`${prefix}:meta|format`, '5');
    const reader = checkpointer({ prefix });
    expect((await reader.list('t')).map((c) => c.state)).toEqual([...states].reverse());
    expect(await admin.get(`${prefix}:meta|format`)).toBe('7');
    // Layout 5's index members already carry summaries: setup() leaves them as they are.
    expect(await admin.zrange(`${prefix}:idx|all`, 0, -1)).toEqual(members);
    expect(await reader.listThreads()).toEqual(listed);
    // A conditional put over a step of six fields checks its revision, and replaces the six by one field.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const cut = new Date();
    const again = new Checkpoint({ thread: 't', step: 1, state: states[1], next: ['b'] });
    await expect(reader.put(again, { ifRevision: 2 })).rejects.toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
    await reader.put(again, { ifRevision: 1 });
    expect((await admin.hkeys(cpKey)).filter((f) => f.startsWith('1'))).toEqual(['1']);
    // Prune by age reads step 0's N:t and removes its fields; step 2's N:f keeps the chunks it references.
    expect(await reader.prune('t', { olderThan: cut })).toBe(1);
    expect((await admin.hkeys(cpKey)).filter((f) => f.startsWith('0'))).toEqual([]);
    const read = await reader.list('t');
    expect(read.map((c) => [c.step, c.revision, c.next, c.state])).toEqual([
      [2, 1, ['a'], states[2]],
      [1, 2, ['b'], states[1]],
    ]);
  });

  it('keeps steps in blocks of 128, each a listpack, and reads, lists and prunes across them', async () => {
    const cp = checkpointer();
    const admin = plainClient();
    const keys = keyLayout(cp.prefix);
    for (let step = 0; step < 300; step++) await cp.put(at('t', step));
    expect(await admin.zrange(keys.stepBlocks('t'), 0, -1)).toEqual(['0', '1', '2']);
    for (const [block, size] of [
      [0, 128],
      [1, 128],
      [2, 44],
    ] as const) {
      const key = keys.stepBlock('t', block);
      // The compact encoding: a listpack from Redis 7 on, a ziplist before (the version matrix runs Redis 6).
      expect([await admin.zcard(key), await admin.object('ENCODING', key)]).toEqual([
        size,
        expect.stringMatching(/^(listpack|ziplist)$/),
      ]);
    }
    const steps = async (opts: { beforeStep?: number; limit?: number }) =>
      (await cp.list('t', opts)).map((c) => c.step);
    expect((await cp.get('t'))?.step).toBe(299);
    expect((await cp.get('t', 128))?.state).toEqual({ step: 128 });
    expect(await steps({ beforeStep: 130, limit: 5 })).toEqual([129, 128, 127, 126, 125]);
    expect(await steps({ beforeStep: 257, limit: 300 })).toHaveLength(257);
    expect(await steps({})).toHaveLength(300);
    // Pruning empties blocks 0 and 1, which leave the block index; a step of block 2 stays with the latest.
    expect(await cp.prune('t', { beforeStep: 290 })).toBe(290);
    expect(await admin.zrange(keys.stepBlocks('t'), 0, -1)).toEqual(['2']);
    expect(await steps({ limit: 3 })).toEqual([299, 298, 297]);
    expect(await cp.deleteThread('t')).toBe(10);
    expect(await admin.keys(`${cp.prefix}:*`)).toEqual([`${cp.prefix}:meta|format`]);
  });

  it("moves a prefix of layout 6 to 7 in setup(): the one sorted set of a thread's steps reads as it is, and its next put moves it to blocks", async () => {
    const prefix = freshPrefix();
    const admin = plainClient();
    const keys = keyLayout(prefix);
    const writer = checkpointer({ prefix });
    for (let step = 0; step < 130; step++) await writer.put(at('old', step));
    await writer.put(at('other', 0));
    await rewindToLayout6(admin, keys, 'old');
    await rewindToLayout6(admin, keys, 'other');
    expect(await admin.zcard(keys.steps('old'))).toBe(130);
    await admin.set(`${prefix}:meta|format`, '6');
    const reader = checkpointer({ prefix });
    expect((await reader.get('old'))?.step).toBe(129);
    expect(await admin.get(`${prefix}:meta|format`)).toBe('7');
    expect((await reader.list('old', { beforeStep: 129, limit: 3 })).map((c) => c.step)).toEqual([
      128, 127, 126,
    ]);
    expect((await reader.get('old', 5))?.state).toEqual({ step: 5 });
    expect(await reader.prune('old', { beforeStep: 2 })).toBe(2);
    expect(await admin.exists(keys.stepBlocks('old'))).toBe(0);
    await reader.put(at('old', 130));
    expect(await admin.exists(keys.steps('old'))).toBe(0);
    expect(await admin.zrange(keys.stepBlocks('old'), 0, -1)).toEqual(['0', '1']);
    expect(await admin.zcard(keys.stepBlock('old', 0))).toBe(126);
    expect((await reader.list('old')).map((c) => c.step)).toEqual(
      Array.from({ length: 129 }, (_, i) => 130 - i),
    );
    // A thread left as it was deletes with its one sorted set.
    expect(await reader.deleteThread('other')).toBe(1);
    expect(await admin.exists(keys.steps('other'))).toBe(0);
  });

  it('keeps a thread summary and one index entry per status in step with puts, prune and delete', async () => {
    const cp = checkpointer();
    const admin = plainClient();
    // Members are `<thread> NUL <summary>`; the ids are what matters here.
    const idx = async (status: string) =>
      (await admin.zrange(`${cp.prefix}:idx|${status}`, 0, -1)).map((m) => m.slice(0, m.indexOf('\u0000')));
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: 0, next: ['a'] }));
    expect(await idx('running')).toEqual(['t']);
    await cp.put(new Checkpoint({ thread: 't', step: 1, state: 0, interrupted: true }));
    expect([await idx('running'), await idx('interrupted')]).toEqual([[], ['t']]);
    // A lower step does not move the summary.
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: 0 }));
    expect(await admin.hgetall(`${cp.prefix}:head|t`)).toMatchObject({ step: '1', status: 'interrupted' });
    await cp.put(new Checkpoint({ thread: 't', step: 2, state: 0 }));
    expect([await idx('interrupted'), await idx('done'), await idx('all')]).toEqual([[], ['t'], ['t']]);
    expect(await cp.prune('t', { beforeStep: 2 })).toBe(2);
    expect(await admin.hkeys(`${cp.prefix}:cp|t`)).toEqual(['2']);
    expect(await cp.deleteThread('t')).toBe(1);
    const left = await admin.keys(`${cp.prefix}:*`);
    expect(left).toEqual([`${cp.prefix}:meta|format`]);
  });
});
