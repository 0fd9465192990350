import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerSuite, serializationSuite } from '@flow/checkpoint-conformance';
import { encryptedSerializer } from '@flow/core';
import { describe } from 'vitest';
import { FileCheckpointer } from '../src/index.js';

// The kit's serialization suite through encryptedSerializer, on a temp root per instance. The full
// describeEncryptedStorage (per-step writes included) replaces this once this backend stores writes.
const serializer = encryptedSerializer({ keys: { k1: randomBytes(32) }, current: 'k1' });
describe('file with encryptedSerializer', () => {
  registerSuite(serializationSuite, {
    create: async () =>
      new FileCheckpointer(join(await mkdtemp(join(tmpdir(), 'flow-file-enc-')), 'store'), { serializer }),
    cleanup: async (cp) => rm(join((cp as FileCheckpointer).dir, '..'), { recursive: true, force: true }),
    timeout: 20_000,
  });
});
