import { randomBytes } from 'node:crypto';
import { registerSuite, serializationSuite } from '@flow/checkpoint-conformance';
import { encryptedSerializer } from '@flow/core';
import { describe } from 'vitest';
import { MemoryCheckpointer } from '../src/index.js';

// The kit's serialization suite through encryptedSerializer. The full describeEncryptedStorage (per-step
// writes included) replaces this once this backend stores writes.
const serializer = encryptedSerializer({ keys: { k1: randomBytes(32) }, current: 'k1' });
describe('memory with encryptedSerializer', () => {
  registerSuite(serializationSuite, { create: async () => new MemoryCheckpointer({ serializer }) });
});
