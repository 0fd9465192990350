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
 * Rebuilds a `Checkpoint` from a stored record. Anything unreadable becomes a `CorruptCheckpointError`
 * naming `location` (a file path or key), so one bad entry never hides the others.
 */
export function decodeRecord(
  record: CheckpointRecord,
  serializer: Serializer,
  location: string,
  backend?: string,
): Checkpoint {
  try {
    return new Checkpoint({
      thread: record.thread,
      step: record.step,
      state: serializer.deserialize(record.state),
      next: record.next,
      interrupted: record.interrupted,
      interruptNode: record.interruptNode,
      interruptPayload: serializer.deserialize(record.interruptPayload),
      ts: record.ts,
      revision: record.revision,
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CorruptCheckpointError(location, detail, { cause: error, backend });
  }
}
