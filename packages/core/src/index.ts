export { type Awaitable, BaseCheckpointer, type BaseCheckpointerOptions } from './base-checkpointer.js';
export { Checkpoint, type CheckpointInit, type ThreadInfo } from './checkpoint.js';
export type { Checkpointer, PutOptions } from './checkpointer.js';
export {
  CheckpointConflict,
  CorruptCheckpointError,
  FlowError,
  type FlowErrorCode,
  InvalidArgumentError,
  isFlowError,
  SerializationError,
  StorageError,
} from './errors.js';
export { type PlainJson, toPlainJson } from './plain-json.js';
export {
  type CheckpointRecord,
  decodeRecord,
  encodeRecord,
  type RecordLocation,
  redactDecodeError,
} from './record.js';
export { createRedactor, type Redactor } from './redactor.js';
export { fromJsonValue, jsonSerializer, type Serializer, toJsonValue } from './serializer.js';
export { compareThreadIds } from './thread-order.js';
export {
  assertIfRevision,
  assertInteger,
  assertKeyPrefix,
  assertListOptions,
  assertListThreadsOptions,
  assertSchemaName,
  assertStep,
  assertThreadId,
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
