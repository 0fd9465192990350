import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { registerSuite, serializationSuite } from '@flow/checkpoint-conformance';
import { encryptedSerializer } from '@flow/core';
import { describe } from 'vitest';
import { SqliteCheckpointer } from '../src/index.js';

// The kit's serialization suite through encryptedSerializer, on a temp file per instance. The full
// describeEncryptedStorage (per-step writes included) replaces this once this backend stores writes.
const serializer = encryptedSerializer({ keys: { k1: randomBytes(32) }, current: 'k1' });
describe('sqlite with encryptedSerializer', () => {
  registerSuite(serializationSuite, {
    create: async () =>
      new SqliteCheckpointer(join(mkdtempSync(join(tmpdir(), 'flow-enc-')), 'flow.db'), { serializer }),
    cleanup: async (cp) =>
      rmSync(dirname((cp as SqliteCheckpointer).filename), { recursive: true, force: true }),
  });
});
