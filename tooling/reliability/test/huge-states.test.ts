import { Checkpoint, isFlowError, jsonSerializer } from '@flow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { count } from './support/figures.js';
import { ALL_BACKENDS, type BackendName, freshStore, type Store } from './support/stores.js';

/** Over 8 MiB once serialized: a 6 MB string of mixed scripts, 20,000 small records, bytes, dates, a Map. */
function hugeState() {
  const items = Array.from({ length: 20_000 }, (_, i) => ({
    i,
    name: `item ${i}`,
    tags: ['a', 'b'],
    at: new Date(i),
  }));
  return {
    text: 'ünïcödé 中文 😀 plain ascii '.repeat((6 * 1024 * 1024) / 32),
    items,
    bytes: new Uint8Array(256 * 1024).map((_, i) => i % 251),
    index: new Map(items.slice(0, 2_000).map((it) => [it.i, it.name])),
  };
}

/** `depth` containers inside one another, cycling through objects, arrays, Maps and Sets. */
function nested(depth: number): unknown {
  let value: unknown = { leaf: 10n };
  for (let i = 0; i < depth; i++) {
    const kind = i % 4;
    value =
      kind === 0
        ? { down: value }
        : kind === 1
          ? [value]
          : kind === 2
            ? new Map([['down', value]])
            : new Set([value]);
  }
  return value;
}

describe.each(ALL_BACKENDS)('%s: large and deep states', (backend: BackendName) => {
  const stores: Store[] = [];
  afterAll(async () => {
    for (const store of stores) await store.remove();
  });

  it('an 8 MB state round-trips exactly, also through a second instance', async () => {
    const store = freshStore(backend);
    stores.push(store);
    const state = hugeState();
    const size = Buffer.byteLength(jsonSerializer.serialize(state));
    expect(size).toBeGreaterThan(8 * 1024 * 1024);
    const cp = store.open();
    await cp.put(new Checkpoint({ thread: 'huge', step: 0, state, next: ['n'] }));
    await cp.put(new Checkpoint({ thread: 'small', step: 0, state: 1 }));
    const reader = backend === 'memory' ? cp : store.open();
    expect((await reader.get('huge'))?.state).toEqual(state);
    expect((await reader.listThreads()).map((t) => t.thread)).toEqual(['huge', 'small']);
    count(`scale: ${backend}`, 'inputs tried');
  });

  it('1,000 levels of nesting round-trip; 100,000 levels are a SerializationError saying so, and nothing is written', async () => {
    const store = freshStore(backend);
    stores.push(store);
    const cp = store.open();
    const deep = nested(1000);
    await cp.put(new Checkpoint({ thread: 'deep', step: 0, state: deep, interruptPayload: nested(999) }));
    const read = await (backend === 'memory' ? cp : store.open()).get('deep');
    expect(read?.state).toEqual(deep);
    expect(read?.interruptPayload).toEqual(nested(999));
    const error = await cp
      .put(new Checkpoint({ thread: 'deeper', step: 0, state: nested(100_000) }))
      .catch((e: unknown) => e);
    expect(isFlowError(error, 'SERIALIZATION'), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/nested too deeply/);
    expect(await cp.get('deeper')).toBeUndefined();
    expect((await cp.listThreads()).map((t) => t.thread)).toEqual(['deep']);
    count(`scale: ${backend}`, 'inputs tried', 2);
  });
});
