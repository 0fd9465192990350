import { Checkpoint, CorruptCheckpointError, isFlowError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';
import { rawDb, tempDbPath } from './support/databases.js';

async function storeTwoThreads(path: string) {
  const checkpointer = new SqliteCheckpointer(path);
  await checkpointer.put(new Checkpoint({ thread: 'bad "one"', step: 0, state: { ok: true }, next: ['a'] }));
  await checkpointer.put(new Checkpoint({ thread: 'bad "one"', step: 1, state: { ok: true }, next: ['a'] }));
  await checkpointer.put(new Checkpoint({ thread: 'good', step: 0, state: { ok: true } }));
  return checkpointer;
}

describe('a corrupt row', () => {
  it.each([
    ['unparsable state', "state = '{not json'"],
    ['unparsable interrupt payload', "interrupt_payload = '{'"],
    ['a next that is not an array of names', "next = '[1, 2]'"],
    ['a next that is not JSON', "next = 'a,b'"],
    ['state stored as a blob', "state = x'00ff'"],
    ['an unparsable ts', "ts = 'yesterday'"],
  ])('with %s rejects with CorruptCheckpointError naming the file, thread and step', async (_, set) => {
    const path = tempDbPath();
    const checkpointer = await storeTwoThreads(path);
    rawDb(path).exec(`UPDATE flow_checkpoints SET ${set} WHERE thread = 'bad "one"' AND step = 1`);

    const error = await checkpointer.get('bad "one"').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptCheckpointError);
    expect(isFlowError(error, 'CORRUPT_CHECKPOINT')).toBe(true);
    const { location, message } = error as CorruptCheckpointError;
    expect(location).toBe(`${path} thread "bad \\"one\\"" step 1`);
    expect(message).toContain('[flow:sqlite]');
    await expect(checkpointer.get('bad "one"', 1)).rejects.toBeInstanceOf(CorruptCheckpointError);
    await expect(checkpointer.list('bad "one"')).rejects.toBeInstanceOf(CorruptCheckpointError);

    // Other steps and threads stay readable; the thread can be listed, pruned and deleted.
    expect((await checkpointer.get('bad "one"', 0))?.state).toEqual({ ok: true });
    expect((await checkpointer.get('good'))?.state).toEqual({ ok: true });
    expect((await checkpointer.listThreads()).map((t) => t.thread)).toEqual(['bad "one"', 'good']);
    expect(await checkpointer.prune('bad "one"', { beforeStep: 1 })).toBe(1);
    expect(await checkpointer.deleteThread('bad "one"')).toBe(1);
    await checkpointer.close();
  });
});
