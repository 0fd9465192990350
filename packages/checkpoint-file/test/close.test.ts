import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { cp, tempBase } from './support/files.js';

it('close() lets puts in flight finish and free their locks, then refuses new calls; the files stay', async () => {
  const t = await tempBase();
  try {
    const fc = new FileCheckpointer(t.store);
    await fc.setup();
    let settled = 0;
    const puts = Array.from({ length: 10 }, (_, i) => fc.put(cp('t', i)).finally(() => settled++));
    // One turn of the event loop: every put has reached storage (the first writing, the rest queued on
    // the thread lock), and none can have finished its fsyncs.
    await new Promise((resolve) => setImmediate(resolve));
    const closing = fc.close();
    await expect(fc.put(cp('t', 99))).rejects.toMatchObject({ code: 'STORAGE' });
    await closing;
    expect(settled).toBe(10);
    expect((await Promise.all(puts)).map((c) => c.revision)).toEqual(Array(10).fill(1));
    expect(await readdir(join(t.store, 'locks'))).toEqual([]);
    await expect(fc.get('t')).rejects.toMatchObject({ code: 'STORAGE' });
    const again = new FileCheckpointer(t.store);
    expect((await again.list('t')).length).toBe(10);
    await again.close();
  } finally {
    await t.remove();
  }
});

it('rejects a bad dir or option in the constructor', () => {
  expect(() => new FileCheckpointer('')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  expect(() => new FileCheckpointer('x\u0000y')).toThrow(
    expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
  );
  expect(() => new FileCheckpointer(42 as unknown as string)).toThrow(
    expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
  );
  expect(() => new FileCheckpointer('d', { lockStaleMs: 0 })).toThrow(
    expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
  );
  expect(() => new FileCheckpointer('d', { lockTimeoutMs: Number.NaN })).toThrow(
    expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
  );
  expect(new FileCheckpointer('relative/dir').dir).toBe(join(process.cwd(), 'relative/dir'));
});
