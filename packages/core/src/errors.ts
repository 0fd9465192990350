/**
 * The stable codes of core's and the storage backends' errors. Other packages own theirs (the engine's are
 * `GraphErrorCode`, in @flow/graph); every code is a plain string on `FlowError#code`. Match on `code`, never
 * on `instanceof`: two copies of core in one app still agree.
 */
export type FlowErrorCode =
  | 'CHECKPOINT_CONFLICT'
  | 'INVALID_ARGUMENT'
  | 'SERIALIZATION'
  | 'CORRUPT_CHECKPOINT'
  | 'STORAGE';

const FLOW_ERROR = Symbol.for('@flow/error');

/** Base class of every error @flow throws; `code` is core's (`FlowErrorCode`) or the throwing package's own. */
export class FlowError<C extends string = string> extends Error {
  readonly code: C;

  constructor(code: C, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
    Object.defineProperty(this, FLOW_ERROR, { value: true });
  }
}

/**
 * True when `error` is a @flow error (optionally of the given code), even when it comes from another copy of core.
 * @example if (isFlowError(e, 'CHECKPOINT_CONFLICT')) retry();
 */
export function isFlowError<C extends string = string>(
  error: unknown,
  code?: C,
): error is FlowError & { code: C } {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; [FLOW_ERROR]?: unknown };
  if (e[FLOW_ERROR] !== true && !(error instanceof FlowError)) return false;
  return code === undefined || e.code === code;
}

/** `[flow:sqlite] ` — the prefix of every message, naming the package or backend that spoke. */
export function prefix(backend?: string): string {
  return backend ? `[flow:${backend}] ` : '[flow] ';
}

/** A conditional put found another revision than it expected. Nothing was written. */
export class CheckpointConflict extends FlowError {
  readonly thread: string;
  readonly step: number;
  readonly expected: number;
  /** The stored revision; `0` when nothing is stored. */
  readonly actual: number;

  constructor(args: { thread: string; step: number; expected: number; actual: number; backend?: string }) {
    super(
      'CHECKPOINT_CONFLICT',
      `${prefix(args.backend)}conflict on thread ${JSON.stringify(args.thread)} step ${args.step}: ` +
        `expected revision ${args.expected}, found ${args.actual}`,
    );
    this.thread = args.thread;
    this.step = args.step;
    this.expected = args.expected;
    this.actual = args.actual;
  }
}

/** An argument broke the contract (bad thread id, step, bound, option...). Nothing was changed. */
export class InvalidArgumentError extends FlowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_ARGUMENT', message, options);
  }
}

/** A value could not be serialized (function, symbol, cycle...) or deserialized. Nothing was written. */
export class SerializationError extends FlowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('SERIALIZATION', message, options);
  }
}

/** A stored checkpoint could not be read back. `location` names the file or key; other threads stay readable. */
export class CorruptCheckpointError extends FlowError {
  readonly location: string;
  /** What is wrong, without the location; never quotes stored text. */
  readonly detail: string;

  constructor(location: string, detail: string, options?: { cause?: unknown; backend?: string }) {
    super(
      'CORRUPT_CHECKPOINT',
      `${prefix(options?.backend)}corrupt checkpoint at ${location}: ${detail}`,
      options,
    );
    this.location = location;
    this.detail = detail;
  }
}

/** The driver or the file system failed. `cause` holds the original error. */
export class StorageError extends FlowError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORAGE', message, options);
  }
}

/**
 * Thrown by a backend's `writeRecord` / `writeRecordWithWrites` when an id in `record.refs` is neither stored for
 * the thread nor among `record.chunks` (the thread was deleted or pruned by another process since core last
 * wrote it). Nothing was stored; core retries the put once with every chunk included. Its code is `STORAGE`,
 * so should it ever reach a caller it reads like any storage failure.
 */
export class MissingChunkError extends StorageError {
  readonly thread: string;
  /** The referenced chunk id that is not stored. */
  readonly id: string;

  constructor(args: { thread: string; id: string; backend?: string }) {
    super(
      `${prefix(args.backend)}chunk ${JSON.stringify(args.id)} of thread ${JSON.stringify(args.thread)} ` +
        'is referenced but not stored',
    );
    this.thread = args.thread;
    this.id = args.id;
  }
}

/** True when `error` is a `MissingChunkError`, even from another copy of core. */
export function isMissingChunkError(error: unknown): error is MissingChunkError {
  return isFlowError(error, 'STORAGE') && (error as Error).name === 'MissingChunkError';
}
