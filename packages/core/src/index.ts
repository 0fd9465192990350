export { type Awaitable, BaseCheckpointer, type BaseCheckpointerOptions } from './base-checkpointer.js';
export { Checkpoint, type CheckpointInit, type ThreadInfo } from './checkpoint.js';
export type { Checkpointer, PutOptions } from './checkpointer.js';
export { deleteIdleThread, type IdleDeleteResult } from './delete-idle-thread.js';
export { envelopeKeyId } from './encrypted-envelope.js';
export {
  ENVELOPE_PREFIX,
  type EncryptedSerializer,
  type EncryptedSerializerOptions,
  encryptedSerializer,
  serializerFromEnv,
} from './encrypted-serializer.js';
export { KEY_BYTES, type ParsedKeys, parseKeyList } from './encryption-keys.js';
export {
  CheckpointConflict,
  CorruptCheckpointError,
  FlowError,
  type FlowErrorCode,
  InvalidArgumentError,
  isFlowError,
  isMissingChunkError,
  MissingChunkError,
  prefix as flowPrefix,
  SerializationError,
  StorageError,
} from './errors.js';
export { canonicalEpochMsOf, epochMsOf } from './iso-now.js';
export {
  assertLeaseRequest,
  type Lease,
  type LeaseRecord,
  type LeaseRequest,
  type LeaseResult,
  leaseRecordOf,
  MAX_LEASE_MS,
  ownerIsGone,
} from './lease.js';
export {
  latestVersion,
  type Migration,
  type MigrationDialect,
  migrate,
  VERSION_TABLE,
} from './migrations.js';
export { type PlainJson, toPlainJson } from './plain-json.js';
export {
  type CheckpointRecord,
  type ChunkRecord,
  decodeRecord,
  decodeWrites,
  encodeRecord,
  encodeWrites,
  type RecordLocation,
  redactDecodeError,
} from './record.js';
export { createRedactor, type Redactor } from './redactor.js';
export {
  fromJsonValue,
  jsonSerializer,
  type SerializeContext,
  type Serializer,
  toJsonValue,
} from './serializer.js';
export {
  parseRunError,
  type RunError,
  type StatusFields,
  statusOf,
  stringifyRunError,
  THREAD_STATUSES,
  threadInfoOf,
  threadStatusOf,
} from './status.js';
export {
  ifStoreExists,
  type StoreFactory,
  type StoreOpenOptions,
  serializerOf,
  storeUrlPath,
  takeUrlParam,
} from './store-factory.js';
export { compareThreadIds } from './thread-order.js';
export {
  threadInfoFromSummary,
  threadSummaryOf,
  UnreadableThreadSummary,
} from './thread-summary.js';
export {
  inTransaction,
  type TransactionDialect,
  type TransactionFailure,
  type TransactionStatements,
  transactionOn,
} from './transaction.js';
export {
  assertIfRevision,
  assertInteger,
  assertListOptions,
  assertListThreadsOptions,
  assertStep,
  assertThreadId,
  describe as describeValue,
  type ListOptions,
  type ListThreadsOptions,
  MAX_STEP,
  MAX_THREAD_LENGTH,
  type NormalizedPruneBounds,
  normalizePruneBounds,
  normalizeTimestamp,
  type PruneBounds,
  type ThreadStatus,
} from './validation.js';
export { assertWrites, compareWrites, type PendingWrite, type WriteRecord } from './writes.js';
