import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEncryptedStorage } from '@flow/checkpoint-conformance';
import { FileCheckpointer } from '../src/index.js';

// The kit's serialization suite and round trips through encryptedSerializer (per-step writes included), on a
// temp root per instance; a reopened instance reads the same root with another serializer.
describeEncryptedStorage<FileCheckpointer>('file', {
  create: async (serializer) =>
    new FileCheckpointer(join(await mkdtemp(join(tmpdir(), 'flow-file-enc-')), 'store'), { serializer }),
  reopen: async (cp, serializer) => new FileCheckpointer(cp.dir, { serializer }),
  cleanup: async (cp) => rm(join(cp.dir, '..'), { recursive: true, force: true }),
  timeout: 20_000,
});
