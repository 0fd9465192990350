import { Checkpoint } from './checkpoint.js';
import { CorruptCheckpointError, prefix, SerializationError } from './errors.js';
import type { Serializer } from './serializer.js';

/**
 * A checkpoint as a backend stores it: state and interrupt payload already serialized, `ts` stamped.
 * Backends write and read these; `BaseCheckpointer` converts to and from `Checkpoint`.
 */
export interface CheckpointRecord {
  thread: string;
  step: number;
  /** Serialized state. */
  state: string;
  next: readonly string[];
  interrupted: boolean;
  interruptNode: string | null;
  /** Serialized interrupt payload. */
  interruptPayload: string;
  /** `Date#toISOString()` form. */
  ts: string;
  /** Stored revision (ignored when writing; the backend computes it). */
  revision: number;
}

function serializeField(
  serializer: Serializer,
  value: unknown,
  field: string,
  cp: Checkpoint,
  backend?: string,
) {
  try {
    return serializer.serialize(value);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SerializationError(
      `${prefix(backend)}${field} of thread ${JSON.stringify(cp.thread)} step ${cp.step}: ${detail}`,
      { cause: error },
    );
  }
}

/** Serializes a checkpoint for storage, stamping `ts` with the current time when it is empty. */
export function encodeRecord(cp: Checkpoint, serializer: Serializer, backend?: string): CheckpointRecord {
  return {
    thread: cp.thread,
    step: cp.step,
    state: serializeField(serializer, cp.state, 'state', cp, backend),
    next: cp.next,
    interrupted: cp.interrupted,
    interruptNode: cp.interruptNode,
    interruptPayload: serializeField(serializer, cp.interruptPayload, 'interruptPayload', cp, backend),
    ts: cp.ts || new Date().toISOString(),
    revision: cp.revision,
  };
}

/**
 * A decoding failure with the stored text left out. Parsers quote the input they stop at (V8's JSON.parse
 * prints the characters around the error, `BigInt()` the whole value), and a state may hold secrets that
 * must not reach a message or a log line. What survives: which field, the error's kind, a position.
 * The copy keeps the original's stack frames, not its message.
 */
export function redactDecodeError(error: unknown, field: string): Error {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const position = /\bposition (\d+)/.exec(message)?.[1];
  const safe = `${field} cannot be decoded (${name}${position === undefined ? '' : ` at position ${position}`})`;
  const copy = new Error(safe);
  copy.name = name;
  const frames =
    error instanceof Error ? (error.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)) : [];
  copy.stack = [`${name}: ${safe}`, ...frames].join('\n');
  return copy;
}

/** Where a record lives: the text, or a function that builds it only when an error needs it. */
export type RecordLocation = string | (() => string);

function where(location: RecordLocation): string {
  return typeof location === 'string' ? location : location();
}

function deserializeField(
  serializer: Serializer,
  text: string,
  field: string,
  location: RecordLocation,
  backend?: string,
) {
  try {
    return serializer.deserialize(text);
  } catch (error) {
    const redacted = redactDecodeError(error, field);
    throw new CorruptCheckpointError(where(location), redacted.message, { cause: redacted, backend });
  }
}

/**
 * Rebuilds a `Checkpoint` from a stored record. Anything unreadable becomes a `CorruptCheckpointError`
 * naming `location` (a file path or key; pass a function to build it only on failure), so one bad entry never
 * hides the others. Its message and cause
 * never quote the stored state or payload (see `redactDecodeError`).
 */
export function decodeRecord(
  record: CheckpointRecord,
  serializer: Serializer,
  location: RecordLocation,
  backend?: string,
): Checkpoint {
  const state = deserializeField(serializer, record.state, 'state', location, backend);
  const interruptPayload = deserializeField(
    serializer,
    record.interruptPayload,
    'interruptPayload',
    location,
    backend,
  );
  try {
    return new Checkpoint({
      thread: record.thread,
      step: record.step,
      state,
      next: record.next,
      interrupted: record.interrupted,
      interruptNode: record.interruptNode,
      interruptPayload,
      ts: record.ts,
      revision: record.revision,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CorruptCheckpointError(where(location), detail, { cause: error, backend });
  }
}
