import { Checkpoint } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { WRITES_PER_INSERT } from '../src/statements.js';
import { freshStore } from './support/stores.js';

describe('a batch of writes larger than one insert statement', () => {
  it('is stored whole, first value winning across the statements it is split into', async () => {
    const cp = freshStore();
    const size = WRITES_PER_INSERT * 2 + 37;
    const keys = Array.from({ length: size }, (_, i) => `k${String(i).padStart(4, '0')}`);
    // Every key twice: first with its index, then (in a later statement of the split) with -1.
    const writes = [...keys, ...keys].map((key, i) => ({ node: 'n', key, value: i < size ? i : -1 }));
    await cp.put(new Checkpoint({ thread: 't', step: 0, state: {}, next: ['n'] }), { writes });
    const stored = await cp.getWrites('t', 0);
    expect(stored).toHaveLength(size);
    expect(stored.every((w, i) => w.key === keys[i] && w.value === i)).toBe(true);
  });
});
