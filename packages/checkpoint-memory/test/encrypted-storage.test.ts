import { describeEncryptedStorage } from '@flow/checkpoint-conformance';
import { MemoryCheckpointer } from '../src/index.js';

// The kit's serialization suite and round trips through encryptedSerializer (per-step writes included). The
// memory backend has no second instance on the same storage, so the suite's reopen checks do not apply.
describeEncryptedStorage('memory', { create: async (serializer) => new MemoryCheckpointer({ serializer }) });
