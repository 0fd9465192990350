import { storedRecord, withOpenStorage } from '@flow/checkpoint-conformance';
import { type CheckpointRecord, type ChunkRecord, MissingChunkError } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { RedisCheckpointer, type RedisCheckpointerOptions } from '../src/index.js';
import { freshPrefix, plainClient, redisUrl } from './support/stores.js';

/** The storage operations core calls, opened up: these tests speak the backend contract directly. */
const Backend = withOpenStorage(RedisCheckpointer);
type Backend = InstanceType<typeof Backend>;

const admin = plainClient();

async function open(options: RedisCheckpointerOptions = {}): Promise<Backend> {
  const cp = new Backend(redisUrl, { prefix: freshPrefix(), ...options });
  await cp.setup();
  return cp;
}

function record(
  thread: string,
  step: number,
  refs: string[] = [],
  chunks: ChunkRecord[] = [],
  state = JSON.stringify({ step, refs }),
): CheckpointRecord {
  return storedRecord(thread, step, {
    state,
    ts: '2026-01-01T00:00:00.000Z',
    ...(refs.length > 0 ? { refs } : {}),
    ...(chunks.length > 0 ? { chunks } : {}),
  });
}

const chunk = (id: string, data = JSON.stringify([id])): ChunkRecord => ({ id, data });

const storedChunks = async (cp: Backend, thread: string) =>
  (await admin.hkeys(`${cp.prefix}:ch|${thread}`)).sort();

const byId = (chunks: readonly ChunkRecord[] | undefined) =>
  [...(chunks ?? [])].sort((a, b) => (a.id < b.id ? -1 : 1));

describe('chunks on redis', () => {
  it('stores a put’s chunks with it and reads each record with the chunks its refs name', async () => {
    const cp = await open();
    await cp.write(record('t', 0, ['a', 'b'], [chunk('a'), chunk('b')]));
    await cp.write(record('t', 1, ['a', 'c'], [chunk('c')]));
    await cp.write(record('t', 2));
    const latest = await cp.read('t');
    expect([latest?.step, latest?.refs, latest?.chunks]).toEqual([2, undefined, undefined]);
    const first = await cp.read('t', 0);
    expect([first?.refs, byId(first?.chunks)]).toEqual([
      ['a', 'b'],
      [chunk('a'), chunk('b')],
    ]);
    const listed = await cp.readAll('t');
    expect(listed.map((r) => [r.step, r.refs, byId(r.chunks)])).toEqual([
      [2, undefined, []],
      [1, ['a', 'c'], [chunk('a'), chunk('c')]],
      [0, ['a', 'b'], [chunk('a'), chunk('b')]],
    ]);
    expect((await cp.readAll('t', { beforeStep: 2, limit: 1 })).map((r) => byId(r.chunks))).toEqual([
      [chunk('a'), chunk('c')],
    ]);
    // A large state (staged in a key of its own) references chunks the same way.
    const large = JSON.stringify({ text: 'x'.repeat(40_000) });
    await cp.write(record('t', 3, ['c'], [], large));
    expect([(await cp.read('t'))?.state, (await cp.read('t'))?.chunks]).toEqual([large, [chunk('c')]]);
    // A step rewritten as a whole state no longer references any.
    await cp.write(record('t', 1));
    expect((await cp.read('t', 1))?.refs).toBeUndefined();
  });

  it('keeps the data of an id already stored', async () => {
    const cp = await open();
    await cp.write(record('keep', 0, ['a'], [chunk('a', '"first"')]));
    await cp.write(record('keep', 1, ['a'], [chunk('a', '"second"')]));
    expect((await cp.read('keep', 1))?.chunks).toEqual([chunk('a', '"first"')]);
  });

  it('throws MissingChunkError for a ref neither stored nor in the put, and stores nothing', async () => {
    const cp = await open();
    await cp.write(record('gap', 0, ['a'], [chunk('a')]));
    const large = JSON.stringify({ text: 'x'.repeat(40_000) });
    for (const state of [undefined, large]) {
      const error = await cp
        .write(record('gap', 1, ['a', 'zz'], [chunk('b')], state), undefined)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MissingChunkError);
      expect(error).toMatchObject({ thread: 'gap', id: 'zz', code: 'STORAGE' });
      expect(await cp.read('gap', 1)).toBeUndefined();
      expect(await storedChunks(cp, 'gap')).toEqual(['a']);
    }
    expect(await admin.exists(`${cp.prefix}:in|gap`, `${cp.prefix}:st|1|gap`)).toBe(0);
    // The same put with every chunk included succeeds.
    await cp.write(record('gap', 1, ['a', 'zz'], [chunk('a'), chunk('zz')]));
    expect(byId((await cp.read('gap'))?.chunks)).toEqual([chunk('a'), chunk('zz')]);
  });

  it('a conditional put that conflicts stores no chunk', async () => {
    const cp = await open();
    await cp.write(record('cond', 0, ['a'], [chunk('a')]));
    await expect(cp.write(record('cond', 0, ['b'], [chunk('b')]), 0)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    await expect(cp.write(record('cond', 0, ['b'], [chunk('b')]), 5)).rejects.toMatchObject({
      code: 'CHECKPOINT_CONFLICT',
    });
    expect(await storedChunks(cp, 'cond')).toEqual(['a']);
    expect(await cp.write(record('cond', 0, ['b'], [chunk('b')]), 1)).toBe(2);
    expect(await storedChunks(cp, 'cond')).toEqual(['a', 'b']);
  });

  it('prune removes the chunks no remaining checkpoint references; deleteThread removes them all', async () => {
    const cp = await open();
    await cp.write(record('p', 0, ['a', 'b'], [chunk('a'), chunk('b')]));
    await cp.write(record('p', 1, ['b', 'c'], [chunk('c')]));
    // Overwritten: chunk d loses its only reference without a prune, and the next prune collects it.
    await cp.write(record('p', 2, ['c', 'd'], [chunk('d')]));
    await cp.write(record('p', 2, ['c', 'e'], [chunk('e')]));
    expect(await storedChunks(cp, 'p')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(await cp.removeBefore('p', { beforeStep: 1 })).toBe(1);
    expect(await storedChunks(cp, 'p')).toEqual(['b', 'c', 'e']);
    expect(await admin.hexists(`${cp.prefix}:cp|p`, '0:f')).toBe(0);
    expect(byId((await cp.read('p', 1))?.chunks)).toEqual([chunk('b'), chunk('c')]);
    expect(await cp.remove('p')).toBe(2);
    expect(await admin.keys(`${cp.prefix}:*`)).toEqual([`${cp.prefix}:meta|format`]);
  });

  it('reads and prunes a thread of more chunks than one Lua unpack spreads', async () => {
    const cp = await open();
    const ids = Array.from({ length: 9000 }, (_, i) => `c${i}`);
    await cp.write(
      record(
        'many',
        0,
        ids,
        ids.map((id) => chunk(id)),
      ),
    );
    await cp.write(record('many', 1, ['c1'], []));
    expect((await cp.read('many', 0))?.chunks).toHaveLength(9000);
    expect(await cp.removeBefore('many', { beforeStep: 1 })).toBe(1);
    expect(await storedChunks(cp, 'many')).toEqual(['c1']);
  });
});
