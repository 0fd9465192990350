import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Checkpoint, type Serializer } from '@flow/core';
import { describe, expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { decodeStepFile, encodeStepFile, readStepHeader } from '../src/step-file.js';
import { threadName } from '../src/thread-name.js';
import { useTempBase } from './support/files.js';

const t = useTempBase();

const fileOf = (thread: string, step: number) =>
  join(t.store, 'threads', threadName(thread), `${String(step).padStart(10, '0')}.json`);

describe('a step file', () => {
  it('is one JSON document holding the real id, the revision and the state as JSON', async () => {
    const fc = new FileCheckpointer(t.store);
    await fc.put(new Checkpoint({ thread: 'a/b', step: 3, state: { when: new Date(0), n: 1 }, next: ['x'] }));
    await fc.put(
      new Checkpoint({ thread: 'a/b', step: 3, state: { n: 2 }, interrupted: true, interruptPayload: 'q?' }),
    );
    const doc = JSON.parse(await readFile(fileOf('a/b', 3), 'utf8'));
    expect(doc).toMatchObject({
      format: 2,
      thread: 'a/b',
      step: 3,
      revision: 2,
      interrupted: true,
      interruptPayload: 'q?',
      state: { n: 2 },
    });
    await fc.close();
  });

  it('stores a custom serializer’s non-JSON text as a JSON string, and reads it back', async () => {
    const reversed: Serializer = {
      serialize: (v) => `<<${JSON.stringify(v)}>>`,
      deserialize: (text) => JSON.parse(text.slice(2, -2)),
    };
    const fc = new FileCheckpointer(t.store, { serializer: reversed });
    await fc.put(new Checkpoint({ thread: 't', step: 0, state: { s: 'é 🦊 "q"' }, interruptPayload: [1] }));
    const doc = JSON.parse(await readFile(fileOf('t', 0), 'utf8'));
    expect(doc).toMatchObject({ text: true, state: '<<{"s":"é 🦊 \\"q\\""}>>' });
    const back = await fc.get('t');
    expect(back?.state).toEqual({ s: 'é 🦊 "q"' });
    expect(back?.interruptPayload).toEqual([1]);
    await fc.close();
  });

  it('keeps its header apart from fields that contain the delimiters', () => {
    const thread = 'x,"interruptPayload":{},"state":';
    const record = {
      thread,
      step: 1,
      state: '{"s":",\\"state\\":"}',
      next: [',"interruptPayload":', '}'],
      interrupted: false,
      interruptNode: ',"state":',
      interruptPayload: '",\\"interruptPayload\\":"',
      ts: '2026-01-01T00:00:00.000Z',
      revision: 0,
      error: '{"node":",\\"state\\":","message":",\\"interruptPayload\\":"}',
      meta: '{"k":",\\"interruptPayload\\":"}',
    };
    const bytes = encodeStepFile(record, 7, true);
    expect(decodeStepFile(bytes, 'f', thread, 1)).toEqual({ ...record, revision: 7 });
  });

  it('has its header read alone even when it is longer than one read chunk', async () => {
    // A whole state, so the file is long past the header (a linear one would keep the state in chunks).
    const fc = new FileCheckpointer(t.store, { stateStorage: 'whole' });
    const next = Array.from({ length: 2000 }, (_, i) => `node-${i}-${'n'.repeat(10)}`);
    await fc.put(new Checkpoint({ thread: 't', step: 0, state: 'x'.repeat(100_000), next }));
    const header = await readStepHeader(fileOf('t', 0), 't', 0);
    expect(header?.next).toEqual(next);
    expect(header?.stateBytes).toBe(100_002);
    expect((await fc.listThreads())[0]?.done).toBe(false);
    await fc.close();
  });
});
