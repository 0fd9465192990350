import { readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { isThreadName, threadName } from '../src/thread-name.js';
import { cp, useTempBase, walk } from './support/files.js';

const HOSTILE = [
  '.',
  '..',
  '../..',
  '../../../../etc/passwd',
  '/absolute/path',
  'a/b',
  'a%2Fb',
  'a\\b',
  'C:\\Windows',
  'con',
  'NUL.txt',
  '.hidden',
  '.tmp-123-abc',
  '.trash-1',
  'thread.json',
  '0000000001.json',
  ' spaced ',
  'quote"s\'',
  'new\nline',
  'emoji 🦊🚀',
  'é',
  'e\u0301',
  '\u202Eevil',
  'x'.repeat(512),
  '🦊'.repeat(256),
  '/'.repeat(512),
  '.'.repeat(512),
];

const t = useTempBase();

describe('thread directory names', () => {
  it('hold no separator or dot segment and stay within 255 bytes, whatever the id', () => {
    for (const id of HOSTILE) {
      const name = threadName(id);
      expect(isThreadName(name)).toBe(true);
      expect(name).not.toMatch(/[/\\.]/);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(105);
    }
  });

  it('differ for ids that differ only in case, even after case folding', () => {
    const ids = ['thread', 'Thread', 'THREAD', 'tHrEaD', 'ß', 'SS', 'ss', 'A', 'a'];
    const folded = new Set(ids.map((id) => threadName(id).toLowerCase()));
    expect(folded.size).toBe(ids.length);
  });

  it('keep a readable prefix', () => {
    expect(threadName('order-42')).toMatch(/^order-42-[0-9a-f]{64}$/);
    expect(threadName('a/b c')).toMatch(/^a_b_c-[0-9a-f]{64}$/);
    expect(threadName('🦊x')).toMatch(/^_x-[0-9a-f]{64}$/);
  });
});

describe('hostile thread ids', () => {
  it('never place anything outside the root, and each id round-trips to its own directory', async () => {
    const fc = new FileCheckpointer(t.store);
    for (const [i, id] of HOSTILE.entries()) await fc.put(cp(id, 0, { i }));
    const root = await realpath(t.store);
    for (const e of await walk(t.store)) {
      const real = await realpath(e.path);
      expect(real.startsWith(root + sep)).toBe(true);
      expect(Buffer.byteLength(e.name)).toBeLessThanOrEqual(255);
      expect(relative(root, real).split(sep).length).toBeLessThanOrEqual(3);
    }
    // Nothing was written next to the root.
    expect(await readdir(t.base)).toEqual(['store']);
    expect(await readdir(join(t.store, 'threads'))).toHaveLength(HOSTILE.length);
    for (const [i, id] of HOSTILE.entries()) expect((await fc.get(id))?.state).toEqual({ i });
    const listed = (await fc.listThreads()).map((info) => info.thread);
    expect([...listed].sort()).toEqual([...HOSTILE].sort());
    await fc.close();
  });

  it('keeps case-only-different ids apart', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(cp('Order', 0, 'upper'));
    await fc.put(cp('order', 0, 'lower'));
    await fc.put(cp('ORDER', 0, 'caps'));
    expect((await fc.get('Order'))?.state).toBe('upper');
    expect((await fc.get('order'))?.state).toBe('lower');
    expect((await fc.get('ORDER'))?.state).toBe('caps');
    const dirs = await readdir(join(t.store, 'threads'));
    expect(new Set(dirs.map((d) => d.toLowerCase())).size).toBe(3);
    expect(await fc.deleteThread('order')).toBe(1);
    expect((await fc.get('Order'))?.state).toBe('upper');
    expect(await fc.get('order')).toBeUndefined();
    await fc.close();
  });

  it('stores 512-character ids, and keeps two that share a 511-character prefix apart', async () => {
    const fc = new FileCheckpointer(t.store);
    const a = `${'x'.repeat(511)}a`;
    const b = `${'x'.repeat(511)}b`;
    await fc.put(cp(a, 0, 'a'));
    await fc.put(cp(b, 0, 'b'));
    expect((await fc.get(a))?.state).toBe('a');
    expect((await fc.get(b))?.state).toBe('b');
    expect((await fc.listThreads()).map((i) => i.thread)).toEqual([a, b]);
    await fc.close();
  });
});
