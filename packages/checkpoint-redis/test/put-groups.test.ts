import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { plainClient } from './support/stores.js';
import { watched } from './support/watched.js';

const at = (thread: string, step: number, state: unknown = { thread, step }) =>
  new Checkpoint({ thread, step, state, next: ['n'] });

/** What each settled put came to: its revision, or the code of its error. */
const outcomes = (settled: PromiseSettledResult<Checkpoint>[]) =>
  settled.map((s) => (s.status === 'fulfilled' ? s.value.revision : (s.reason as { code?: string }).code));

describe('puts that arrive together', () => {
  const { prefix, cp, during } = watched();

  it('go to Redis as one EVALSHA, and each is stored', async () => {
    const threads = Array.from({ length: 10 }, (_, i) => `g${i}`);
    const { sent } = await during(() => Promise.all(threads.map((t) => cp.put(at(t, 0)))));
    expect(sent.map((s) => s.args[0])).toEqual(['evalsha']);
    const stored = await Promise.all(threads.map(async (t) => (await cp.get(t))?.state));
    expect(stored).toEqual(threads.map((thread) => ({ thread, step: 0 })));
  });

  it('a conflicting conditional put fails alone: the puts beside it in the call are stored', async () => {
    await cp.put(at('c1', 0, 'first'));
    let settled: PromiseSettledResult<Checkpoint>[] = [];
    const { sent } = await during(async () => {
      settled = await Promise.allSettled([
        cp.put(at('c0', 0)),
        cp.put(at('c1', 0, 'stale'), { ifRevision: 0 }),
        cp.put(at('c2', 0), { ifRevision: 0 }),
        cp.put(at('c1', 1), { ifRevision: 0 }),
      ]);
    });
    expect(sent.map((s) => s.args[0])).toEqual(['evalsha']);
    expect(outcomes(settled)).toEqual([1, 'CHECKPOINT_CONFLICT', 1, 1]);
    expect(settled[1]).toMatchObject({ reason: { expected: 0, actual: 1 } });
    expect((await cp.get('c0'))?.state).toEqual({ thread: 'c0', step: 0 });
    expect(await cp.get('c1', 0)).toMatchObject({ state: 'first', revision: 1 });
    expect((await cp.get('c1'))?.state).toEqual({ thread: 'c1', step: 1 });
    expect((await cp.get('c2'))?.state).toEqual({ thread: 'c2', step: 0 });
  });

  it('a put whose command fails rejects alone, with the server error: the puts beside it are stored', async () => {
    // Not a hash: the put's first command on it fails with WRONGTYPE.
    await plainClient().set(`${prefix}:cp|broken`, 'a string');
    let settled: PromiseSettledResult<Checkpoint>[] = [];
    const { sent } = await during(async () => {
      settled = await Promise.allSettled([cp.put(at('x0', 0)), cp.put(at('broken', 0)), cp.put(at('x1', 0))]);
    });
    expect(sent.map((s) => s.args[0])).toEqual(['evalsha']);
    expect(outcomes(settled)).toEqual([1, 'STORAGE', 1]);
    expect(settled[1]).toMatchObject({ reason: { message: expect.stringMatching(/WRONGTYPE/) } });
    expect((await cp.get('x0'))?.state).toEqual({ thread: 'x0', step: 0 });
    expect((await cp.get('x1'))?.state).toEqual({ thread: 'x1', step: 0 });
    expect(await cp.listThreads()).not.toContainEqual(expect.objectContaining({ thread: 'broken' }));
  });

  it('none resolves before Redis applied it: another connection reads each put as it resolves', async () => {
    const admin = plainClient();
    const gate = `${prefix}:gate`;
    // The checkpointer's connection first waits in a BLPOP: Redis runs the puts sent after it once it returns.
    const blocked = cp.connection.blpop(gate, 10);
    const seen = Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        await cp.put(at(`r${i}`, 0));
        return (await admin.hget(`${prefix}:cp|r${i}`, '0'))?.split(' ')[0];
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await admin.lpush(gate, 'go');
    await blocked;
    expect(await seen).toEqual(Array(8).fill('1'));
  });
});
