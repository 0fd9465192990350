import { describeEncryptedStorage } from '@flow/checkpoint-conformance';
import { PostgresCheckpointer } from '../src/index.js';
import { dropSchema, uniqueSchema, url } from './support/stores.js';

// The kit's serialization suite and round trips through encryptedSerializer: its envelopes are JSON strings,
// stored as JSONB and read back byte for byte.
describeEncryptedStorage('postgres', {
  create: async (serializer) => new PostgresCheckpointer(url, { schema: uniqueSchema(), serializer }),
  reopen: async (cp, serializer) => new PostgresCheckpointer(url, { schema: cp.schema, serializer }),
  cleanup: async (cp) => dropSchema(url, cp.schema),
  timeout: 20_000,
});
