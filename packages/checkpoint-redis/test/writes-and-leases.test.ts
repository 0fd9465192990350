import { Checkpoint, type Checkpointer } from '@flow/core';
import { describe, expect, it, vi } from 'vitest';
import { checkpointer } from './support/stores.js';

const cp: Checkpointer = checkpointer();

const at = (thread: string, step: number) => new Checkpoint({ thread, step, state: { step }, next: ['n'] });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('writes', () => {
  it('first value wins per (node, key), within a batch and across calls; hostile node and key are kept as-is', async () => {
    const hostile = "x'; DROP TABLE writes; --\u{1F600}|\\{}";
    await cp.put(at('w', 0), {
      writes: [
        { node: 'b', key: 'k', value: 1 },
        { node: hostile, key: hostile, value: 'h' },
        { node: 'b', key: 'k', value: 2 },
      ],
    });
    await cp.putWrites('w', 0, [
      { node: 'b', key: 'k', value: 3 },
      { node: 'a', key: 'k', value: 4 },
    ]);
    expect(await cp.getWrites('w', 0)).toEqual([
      { node: 'a', key: 'k', value: 4 },
      { node: 'b', key: 'k', value: 1 },
      { node: hostile, key: hostile, value: 'h' },
    ]);
  });

  it('a conflicting conditional put stores none of its writes', async () => {
    await cp.put(at('c', 0));
    await expect(
      cp.put(at('c', 0), { ifRevision: 0, writes: [{ node: 'n', key: 'k', value: 1 }] }),
    ).rejects.toMatchObject({ code: 'CHECKPOINT_CONFLICT' });
    expect(await cp.getWrites('c', 0)).toEqual([]);
  });

  it('prune removes the writes of the steps it removes only; deleteThread removes them all', async () => {
    for (const step of [0, 1, 2])
      await cp.put(at('p', step), { writes: [{ node: 'n', key: 'k', value: step }] });
    // Writes for a step with no checkpoint yet are allowed.
    await cp.putWrites('p', 3, [{ node: 'n', key: 'k', value: 3 }]);
    expect(await cp.prune('p', { beforeStep: 1 })).toBe(1);
    expect(await cp.getWrites('p', 0)).toEqual([]);
    expect(await cp.getWrites('p', 1)).toHaveLength(1);
    expect(await cp.getWrites('p', 3)).toHaveLength(1);
    await cp.acquireLease('p', { owner: 'o', ttlMs: 60_000 });
    expect(await cp.deleteThread('p')).toBe(2);
    for (const step of [1, 2, 3]) expect(await cp.getWrites('p', step)).toEqual([]);
    expect(await cp.getLease('p')).toBeUndefined();
  });

  it('listThreads ignores a thread that has only writes', async () => {
    await cp.putWrites('only-writes', 0, [{ node: 'n', key: 'k', value: 1 }]);
    expect((await cp.listThreads()).map((t) => t.thread)).not.toContain('only-writes');
  });
});

describe('leases', () => {
  it('one owner at a time; renewing and re-acquiring your own; release by the holder only', async () => {
    const lease = await cp.acquireLease('l', { owner: 'a', ttlMs: 60_000 });
    expect(lease).toMatchObject({ thread: 'l', owner: 'a', pid: process.pid });
    expect(await cp.acquireLease('l', { owner: 'b', ttlMs: 60_000 })).toBeUndefined();
    expect(await cp.acquireLease('l', { owner: 'a', ttlMs: 60_000 })).toMatchObject({ owner: 'a' });
    expect(await cp.renewLease('l', { owner: 'b', ttlMs: 60_000 })).toBe(false);
    await cp.releaseLease('l', 'b');
    expect(await cp.getLease('l')).toMatchObject({ owner: 'a' });
    await cp.releaseLease('l', 'a');
    expect(await cp.getLease('l')).toBeUndefined();
    expect(await cp.acquireLease('l', { owner: 'b', ttlMs: 60_000 })).toMatchObject({ owner: 'b' });
  });

  it('expires by the store clock: gone after its ttl, and then it cannot be renewed but can be taken', async () => {
    await cp.acquireLease('e', { owner: 'a', ttlMs: 150 });
    await sleep(300);
    expect(await cp.getLease('e')).toBeUndefined();
    expect(await cp.renewLease('e', { owner: 'a', ttlMs: 60_000 })).toBe(false);
    expect(await cp.acquireLease('e', { owner: 'b', ttlMs: 60_000 })).toMatchObject({ owner: 'b' });
  });

  it("a process whose clock runs a day ahead still sees a live lease as live (this process's clock is not used)", async () => {
    await cp.acquireLease('skew', { owner: 'a', ttlMs: 60_000 });
    const now = Date.now();
    const ahead = vi.spyOn(Date, 'now').mockReturnValue(now + 86_400_000);
    try {
      expect(await cp.getLease('skew')).toMatchObject({ owner: 'a' });
      expect(await cp.acquireLease('skew', { owner: 'b', ttlMs: 60_000 })).toBeUndefined();
    } finally {
      ahead.mockRestore();
    }
    const lease = await cp.getLease('skew');
    expect(Date.parse(lease!.expiresAt) - now).toBeGreaterThan(50_000);
  });
});
