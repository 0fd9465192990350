import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describeEncryptedStorage } from '@flow/checkpoint-conformance';
import { SqliteCheckpointer } from '../src/index.js';

// The kit's serialization suite and round trips through encryptedSerializer (per-step writes included), on a
// temp file per instance; a reopened instance reads the same file with another serializer.
describeEncryptedStorage<SqliteCheckpointer>('sqlite', {
  create: async (serializer) =>
    new SqliteCheckpointer(join(mkdtempSync(join(tmpdir(), 'flow-enc-')), 'flow.db'), { serializer }),
  reopen: async (cp, serializer) => new SqliteCheckpointer(cp.filename, { serializer }),
  cleanup: async (cp) => rmSync(dirname(cp.filename), { recursive: true, force: true }),
});
