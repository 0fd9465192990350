import { Checkpoint } from './checkpoint.js';
import { CorruptCheckpointError, isFlowError, prefix, SerializationError } from './errors.js';
import { isoNow } from './iso-now.js';
import { decodeLinear } from './linear/decode.js';
import type { SerializeContext, Serializer } from './serializer.js';
import { parseRunError, stringifyRunError } from './status.js';
import type { PendingWrite, WriteRecord } from './writes.js';

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
  /** JSON text of the run's `RunError` when it failed here, else null. Records written before read as null. */
  error: string | null;
  /** JSON text of `meta` (`'{}'` when empty). Records written before read as `'{}'`. */
  meta: string;
  /**
   * Ids of the stored chunks this record's `state` references (docs/writing-a-checkpointer.md, "Chunks").
   * Absent or empty: `state` is the whole state, the format every record had before; old rows read this way.
   */
  refs?: readonly string[];
  /**
   * On write: the chunks new with this put, stored in the same atomic operation as the record (an id already
   * stored for the thread keeps its data). On read: the backend sets it to the stored chunks of `refs`, in any
   * order; a missing id is simply absent (core then raises `CorruptCheckpointError` naming it).
   */
  chunks?: readonly ChunkRecord[];
}

/**
 * A part of a thread's state stored once and referenced by id from every record that shares it. `id` matches
 * `[0-9A-Za-z._-]{1,40}` and is unique within the thread (core never reuses one for other data); `data` is the
 * serializer's text, like `state`.
 */
export interface ChunkRecord {
  id: string;
  data: string;
}

/** How messages name a field: `state`, `write ["node","key"]`, `chunk "id"`. */
function fieldName(context: SerializeContext): string {
  if (context.field === 'write') return `write ${JSON.stringify([context.node, context.key])}`;
  if (context.field === 'chunk') return `chunk ${JSON.stringify(context.chunk)}`;
  return context.field;
}

function serializeField(serializer: Serializer, value: unknown, context: SerializeContext, backend?: string) {
  try {
    return serializer.serialize(value, context);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SerializationError(
      `${prefix(backend)}${fieldName(context)} of thread ${JSON.stringify(context.thread)} step ${context.step}: ${detail}`,
      { cause: error },
    );
  }
}

const EMPTY_META_TEXT = '{}';

/**
 * The last frozen meta of primitives encoded, and its text: the engine puts one frozen `{ stateVersion }` object
 * on every checkpoint of a graph, so its text is made once, not once per step.
 */
let lastMeta: object | undefined;
let lastMetaText = EMPTY_META_TEXT;

/** Own data properties of primitive values only: frozen, such an object's JSON text can never change. */
function holdsOnlyPrimitives(meta: object): boolean {
  for (const d of Object.values(Object.getOwnPropertyDescriptors(meta))) {
    if (!('value' in d) || (d.value !== null && typeof d.value === 'object')) return false;
  }
  return Object.getPrototypeOf(meta) === Object.prototype || Object.getPrototypeOf(meta) === null;
}

/** `JSON.stringify` of `meta`, its TypeError (a BigInt, a cycle) a `SerializationError` naming the record. */
function metaJson(meta: Readonly<Record<string, unknown>>, cp: Checkpoint, backend?: string): string {
  try {
    return JSON.stringify(meta);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new SerializationError(
      `${prefix(backend)}meta of thread ${JSON.stringify(cp.thread)} step ${cp.step} is not plain JSON: ${detail}`,
      { cause: error },
    );
  }
}

function stringifyMeta(cp: Checkpoint, backend?: string): string {
  const meta = cp.meta;
  if (meta === lastMeta) return lastMetaText;
  for (const _ in meta) {
    const text = metaJson(meta, cp, backend);
    if (Object.isFrozen(meta) && holdsOnlyPrimitives(meta)) {
      lastMeta = meta;
      lastMetaText = text;
    }
    return text;
  }
  return EMPTY_META_TEXT;
}

/**
 * Serializes a checkpoint for storage, stamping `ts` with the current time when it is empty. `state`, when
 * given, is the state's stored text already made (a linear state's skeleton).
 */
export function encodeRecord(
  cp: Checkpoint,
  serializer: Serializer,
  backend?: string,
  state?: string,
): CheckpointRecord {
  // meta first: a meta that is not JSON fails the put before any state is serialized or chunk made.
  const meta = stringifyMeta(cp, backend);
  return {
    thread: cp.thread,
    step: cp.step,
    state:
      state ??
      serializeField(serializer, cp.state, { thread: cp.thread, step: cp.step, field: 'state' }, backend),
    next: cp.next,
    interrupted: cp.interrupted,
    interruptNode: cp.interruptNode,
    interruptPayload: serializeField(
      serializer,
      cp.interruptPayload,
      { thread: cp.thread, step: cp.step, field: 'interruptPayload' },
      backend,
    ),
    ts: cp.ts || isoNow(),
    revision: cp.revision,
    error: stringifyRunError(cp.error),
    meta,
  };
}

/** Serializes writes for storage at (thread, step). */
export function encodeWrites(
  thread: string,
  step: number,
  writes: readonly PendingWrite[],
  serializer: Serializer,
  backend?: string,
): WriteRecord[] {
  return writes.map((w) => ({
    node: w.node,
    key: w.key,
    value: serializeField(
      serializer,
      w.value,
      { thread, step, field: 'write', node: w.node, key: w.key },
      backend,
    ),
  }));
}

/** Rebuilds writes read from (thread, step); an unreadable one is a `CorruptCheckpointError` naming it. */
export function decodeWrites(
  thread: string,
  step: number,
  records: readonly WriteRecord[],
  serializer: Serializer,
  location: RecordLocation,
  backend?: string,
): PendingWrite[] {
  return records.map((r) => {
    const context: SerializeContext = { thread, step, field: 'write', node: r.node, key: r.key };
    try {
      return { node: r.node, key: r.key, value: serializer.deserialize(r.value, context) };
    } catch (error) {
      const redacted = redactDecodeError(error, `write ${JSON.stringify([r.node, r.key])}`);
      throw new CorruptCheckpointError(where(location), redacted.message, { cause: redacted, backend });
    }
  });
}

/**
 * A decoding failure with the stored text left out. Parsers quote the input they stop at (V8's JSON.parse
 * prints the characters around the error, `BigInt()` the whole value), and a state may hold secrets that
 * must not reach a message or a log line. What survives: which field, the error's kind, a position.
 * The copy keeps the original's stack frames, not its message.
 */
export function redactDecodeError(error: unknown, field: string): Error {
  // A serializer that reports a corrupt record (the encrypted one) writes a message meant to be shown.
  if (
    isFlowError(error, 'CORRUPT_CHECKPOINT') &&
    typeof (error as CorruptCheckpointError).detail === 'string'
  ) {
    const copy = new Error(`${field} cannot be decoded: ${(error as CorruptCheckpointError).detail}`);
    copy.name = error.name;
    return copy;
  }
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
  context: SerializeContext,
  location: RecordLocation,
  backend?: string,
) {
  try {
    return serializer.deserialize(text, context);
  } catch (error) {
    const redacted = redactDecodeError(error, fieldName(context));
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
  const { thread, step, refs } = record;
  // Contexts are written out, not spread from a shared `{ thread, step }`: in a profile of gets of a 2 KB
  // checkpoint, the two spreads cost a fifth as much as parsing the state.
  const state =
    refs === undefined || refs.length === 0
      ? deserializeField(serializer, record.state, { thread, step, field: 'state' }, location, backend)
      : decodeLinear(
          { ...record, refs },
          {
            deserialize: (text, context) => deserializeField(serializer, text, context, location, backend),
            corrupt: (detail) => {
              throw new CorruptCheckpointError(where(location), detail, { backend });
            },
          },
        );
  const interruptPayload = deserializeField(
    serializer,
    record.interruptPayload,
    { thread, step, field: 'interruptPayload' },
    location,
    backend,
  );
  try {
    return new Checkpoint({
      thread,
      step,
      state,
      next: record.next,
      interrupted: record.interrupted,
      interruptNode: record.interruptNode,
      interruptPayload,
      ts: record.ts,
      revision: record.revision,
      error: parseRunError(record.error),
      meta:
        record.meta === undefined || record.meta === EMPTY_META_TEXT ? undefined : JSON.parse(record.meta),
    });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CorruptCheckpointError(where(location), detail, { cause: error, backend });
  }
}
