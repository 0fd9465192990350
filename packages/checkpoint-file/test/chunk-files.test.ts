import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { storedRecord, withOpenStorage } from '@flow/checkpoint-conformance';
import type { CheckpointRecord, ChunkRecord, Serializer } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { chunkFileName } from '../src/layout.js';
import { threadName } from '../src/thread-name.js';
import { useTempBase } from './support/files.js';

const t = useTempBase();

/** The backend contract itself: records with refs and chunks as core's encoder hands them. */
const Raw = withOpenStorage(FileCheckpointer);

function record(thread: string, step: number, refs?: string[], chunks: ChunkRecord[] = []): CheckpointRecord {
  return storedRecord(thread, step, refs === undefined ? {} : { refs, chunks });
}

const chunk = (id: string, data = `"${id}"`): ChunkRecord => ({ id, data });
const chunksDir = (thread: string) => join(t.store, 'threads', threadName(thread), 'chunks');
const ids = (chunks: readonly ChunkRecord[] | undefined) => chunks?.map((c) => c.id).sort();

/** The chunk ids stored for `thread`, from the file names (hex of the id). */
async function stored(thread: string): Promise<string[]> {
  const names = await readdir(chunksDir(thread)).catch(() => [] as string[]);
  return names.map((n) => Buffer.from(n.replace(/\.json$/, ''), 'hex').toString('utf8')).sort();
}

describe('chunk files', () => {
  it('hold the thread and id, then the data as it is; ids differing only in case get files of their own', async () => {
    const raw = new Raw(t.store);
    await raw.write(
      record('a/b', 0, ['k', 'K', '..'], [chunk('k', '{"x":1}'), chunk('K', '[2]'), chunk('..')]),
    );
    const text = await readFile(join(chunksDir('a/b'), chunkFileName('K')), 'utf8');
    expect(JSON.parse(text)).toEqual({
      format: 1,
      thread: 'a/b',
      id: 'K',
      dataBytes: 3,
      data: [2],
    });
    expect(await stored('a/b')).toEqual(['..', 'K', 'k']);
    const read = await raw.read('a/b', 0);
    expect(read?.refs).toEqual(['k', 'K', '..']);
    expect(read?.chunks?.find((c) => c.id === 'k')?.data).toBe('{"x":1}');
    // A step file with refs is of format 3, which a reader of formats 1 and 2 refuses, and leaves out the
    // fields that hold their usual value.
    const step = JSON.parse(await readFile(join(chunksDir('a/b'), '..', '0000000000.json'), 'utf8'));
    expect(step).toMatchObject({ format: 3, refs: ['k', 'K', '..'] });
    expect(Object.keys(step)).not.toContain('interrupted');
    expect([read?.interrupted, read?.interruptNode, read?.error]).toEqual([false, null, null]);
    await raw.write({
      ...record('a/b', 1, ['k'], []),
      interrupted: true,
      interruptNode: 'ask',
      error: '{"node":"n","message":"m"}',
    });
    expect(await raw.read('a/b', 1)).toMatchObject({
      interrupted: true,
      interruptNode: 'ask',
      error: '{"node":"n","message":"m"}',
    });
    await raw.close();
  });

  it('a custom serializer’s text is stored as a JSON string and read back as it was', async () => {
    const wrapped: Serializer = { serialize: (v) => `<<${JSON.stringify(v)}>>`, deserialize: (s) => s };
    const raw = new Raw(t.store, { serializer: wrapped });
    await raw.write(record('t', 0, ['x'], [chunk('x', '<<"é 🦊">>')]));
    expect((await raw.read('t'))?.chunks).toEqual([chunk('x', '<<"é 🦊">>')]);
    await raw.close();
  });

  it('a chunk file of another id or thread, or cut short, is reported, never returned', async () => {
    const raw = new Raw(t.store);
    await raw.write(record('t', 0, ['x', 'y'], [chunk('x', '"xx"'), chunk('y', '"yy"')]));
    const x = join(chunksDir('t'), chunkFileName('x'));
    const y = join(chunksDir('t'), chunkFileName('y'));
    await writeFile(x, await readFile(y));
    await expect(raw.read('t')).rejects.toMatchObject({ code: 'CORRUPT_CHECKPOINT' });
    await writeFile(x, (await readFile(y)).subarray(0, 20));
    await expect(raw.read('t')).rejects.toMatchObject({ code: 'CORRUPT_CHECKPOINT' });
    await raw.close();
  });

  it('an id already stored keeps its data; a list reads every chunk its steps reference', async () => {
    const raw = new Raw(t.store);
    await raw.write(record('t', 0, ['x'], [chunk('x', '"first"')]));
    await raw.write(record('t', 1, ['x', 'y'], [chunk('x', '"second"'), chunk('y')]));
    await raw.write(record('t', 2));
    expect((await raw.read('t', 1))?.chunks?.find((c) => c.id === 'x')?.data).toBe('"first"');
    const all = await raw.readAll('t');
    expect(all.map((r) => [r.step, r.refs, ids(r.chunks)])).toEqual([
      [2, undefined, undefined],
      [1, ['x', 'y'], ['x', 'y']],
      [0, ['x'], ['x', 'y']],
    ]);
    await raw.close();
  });
});

describe('writing chunks', () => {
  it('a ref neither stored nor brought: MissingChunkError, and nothing of the put is stored', async () => {
    const raw = new Raw(t.store);
    await raw.write(record('t', 0, ['x'], [chunk('x')]));
    await expect(raw.write(record('t', 1, ['x', 'gone', 'y'], [chunk('y')]))).rejects.toMatchObject({
      name: 'MissingChunkError',
      code: 'STORAGE',
      thread: 't',
      id: 'gone',
    });
    expect(await raw.read('t', 1)).toBeUndefined();
    expect(await stored('t')).toEqual(['x']);
    await raw.close();
  });

  it('a conflicting conditional put stores no chunk', async () => {
    const raw = new Raw(t.store);
    await raw.write(record('t', 0, ['x'], [chunk('x')]));
    await expect(raw.write(record('t', 0, ['x', 'y'], [chunk('y')]), 0)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    await expect(raw.write(record('t', 0, ['x', 'z'], [chunk('z')]), 5)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    expect(await stored('t')).toEqual(['x']);
    await raw.close();
  });

  it('a step read while another process removes its chunks is read again: gone, it reads as absent', async () => {
    const raw = new Raw(t.store);
    await raw.write(record('t', 0, ['x'], [chunk('x')]));
    await raw.write(record('t', 1, ['x'], []));
    // As deleteThread would leave it between the step file's read and its chunks' (the files are gone).
    await rm(chunksDir('t'), { recursive: true });
    await rm(join(chunksDir('t'), '..', '0000000001.json'));
    expect(await raw.read('t', 1)).toBeUndefined();
    // Still there, the step reads with what chunks are left (none): core reports the missing one.
    expect((await raw.read('t', 0))?.chunks).toEqual([]);
    await raw.close();
  });
});

describe('collecting chunks', () => {
  it('prune removes the chunk files no remaining step references; deleteThread takes them all', async () => {
    const raw = new Raw(t.store);
    await raw.write(record('t', 0, ['a', 'b'], [chunk('a'), chunk('b')]));
    await raw.write(record('t', 1, ['a', 'c'], [chunk('c')]));
    await raw.write(record('t', 2, ['c', 'd'], [chunk('d')]));
    await raw.write(record('other', 0, ['a'], [chunk('a')]));
    expect(await raw.prune('t', { beforeStep: 1 })).toBe(1);
    expect(await stored('t')).toEqual(['a', 'c', 'd']);
    expect(await raw.prune('t', { beforeStep: 2 })).toBe(1);
    expect(await stored('t')).toEqual(['c', 'd']);
    await raw.deleteThread('t');
    expect(await stored('t')).toEqual([]);
    expect(await stored('other')).toEqual(['a']);
    await raw.close();
  });

  it('a remaining step whose header cannot be read keeps every chunk', async () => {
    const raw = new Raw(t.store);
    await raw.write(record('t', 0, ['a'], [chunk('a')]));
    await raw.write(record('t', 1, ['b'], [chunk('b')]));
    await raw.write(record('t', 2, ['b'], []));
    await writeFile(join(chunksDir('t'), '..', '0000000001.json'), 'not a step file');
    expect(await raw.prune('t', { beforeStep: 1 })).toBe(1);
    expect(await stored('t')).toEqual(['a', 'b']);
    await raw.close();
  });
});
