import { Checkpoint, jsonSerializer, type Serializer } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { MemoryCheckpointer } from '../src/index.js';

function counting(): Serializer & { serialized: number; deserialized: number } {
  return {
    serialized: 0,
    deserialized: 0,
    serialize(value) {
      this.serialized++;
      return jsonSerializer.serialize(value);
    },
    deserialize(text) {
      this.deserialized++;
      return jsonSerializer.deserialize(text);
    },
  };
}

const cp = (thread: string, step: number, state: unknown = { step }) =>
  new Checkpoint({ thread, step, state });

describe('MemoryCheckpointer', () => {
  it('uses the serializer it is given, for state and interrupt payload', async () => {
    const serializer = counting();
    const memory = new MemoryCheckpointer({ serializer });
    await memory.put(cp('t', 0));
    expect(serializer.serialized).toBe(2);
    expect((await memory.get('t'))?.state).toEqual({ step: 0 });
    expect(serializer.deserialized).toBe(2);
  });

  it('listThreads reads the per-thread summary and never deserializes state', async () => {
    const serializer = counting();
    const memory = new MemoryCheckpointer({ serializer });
    await Promise.all(['b', 'a', 'c'].map((t) => memory.put(cp(t, 0, { big: 'x'.repeat(100_000) }))));
    const infos = await memory.listThreads({ status: 'done' });
    expect(infos.map((i) => i.thread)).toEqual(['a', 'b', 'c']);
    expect(serializer.deserialized).toBe(0);
  });

  it('keeps each instance apart: two instances never share data', async () => {
    const one = new MemoryCheckpointer();
    const two = new MemoryCheckpointer();
    await one.put(cp('t', 0));
    expect(await two.get('t')).toBeUndefined();
    expect(await two.listThreads()).toEqual([]);
  });

  it('keeps the thread order right as threads come and go', async () => {
    const memory = new MemoryCheckpointer();
    await memory.put(cp('m', 0));
    await memory.put(cp('😀', 0));
    expect((await memory.listThreads()).map((i) => i.thread)).toEqual(['m', '😀']);
    await memory.put(cp('\uFFFD', 0));
    await memory.put(cp('a', 0));
    expect((await memory.listThreads()).map((i) => i.thread)).toEqual(['a', 'm', '\uFFFD', '😀']);
    await memory.deleteThread('m');
    expect((await memory.listThreads({ after: 'a' })).map((i) => i.thread)).toEqual(['\uFFFD', '😀']);
  });

  it('close() drops the data and the instance rejects further calls', async () => {
    const memory = new MemoryCheckpointer();
    await memory.put(cp('t', 0));
    await memory.close();
    await expect(memory.get('t')).rejects.toMatchObject({ code: 'STORAGE', name: 'StorageError' });
  });

  it('names itself in conflict messages', async () => {
    const memory = new MemoryCheckpointer();
    await memory.put(cp('t', 4));
    await expect(memory.put(cp('t', 4), { ifRevision: 0 })).rejects.toThrow(
      '[flow:memory] conflict on thread "t" step 4: expected revision 0, found 1',
    );
  });

  it("stores large states as shared chunks by default, and whole with stateStorage: 'whole'", async () => {
    const chat = (n: number) => ({
      messages: Array.from({ length: n }, (_, i) => ({
        role: 'user',
        content: `${i} ${'words '.repeat(30)}`,
      })),
    });
    const linear = new MemoryCheckpointer();
    const whole = new MemoryCheckpointer({ stateStorage: 'whole' });
    for (const memory of [linear, whole]) {
      for (let step = 0; step < 20; step++) await memory.put(cp('t', step, chat(step + 10)));
      expect((await memory.get('t', 7))?.state).toEqual(chat(17));
    }
    expect(linear.chunkCount('t')).toBeGreaterThan(0);
    expect(whole.chunkCount('t')).toBe(0);
    expect(() => new MemoryCheckpointer({ stateStorage: 'delta' as never })).toThrow(
      /stateStorage must be 'linear' or 'whole'/,
    );
  });
});
