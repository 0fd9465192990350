import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { Checkpoint, isFlowError, type Serializer } from '@flow/core';
import { expect, it } from 'vitest';
import { FileCheckpointer } from '../src/index.js';
import { threadName } from '../src/thread-name.js';
import { useTempBase } from './support/files.js';

const SECRET = 'sk-live-7f3a9c2e';
/** Not the default serializer, so the file holds each field as a JSON string (text mode). */
const text: Serializer = { serialize: (v) => JSON.stringify(v), deserialize: (t) => JSON.parse(t) };

const t = useTempBase();

it('a damaged text-mode field is a CorruptCheckpointError that does not quote the stored state', async () => {
  const fc = new FileCheckpointer(t.store, { serializer: text });
  await fc.put(new Checkpoint({ thread: 't', step: 0, state: SECRET }));
  const path = join(t.store, 'threads', threadName('t'), '0000000000.json');
  const bytes = await readFile(path, 'utf8');
  // Same length: the opening quote of the state's JSON string becomes `x`, right before the secret, where
  // V8's parse error quotes the next characters.
  await writeFile(path, bytes.replace('"state":"', '"state":x'));
  const error = await fc.get('t').catch((e: unknown) => e);
  expect(isFlowError(error, 'CORRUPT_CHECKPOINT'), String(error)).toBe(true);
  expect((error as Error).message).toContain(path);
  expect(inspect(error, { depth: 5 })).not.toContain('sk-live');
  await fc.close();
});
