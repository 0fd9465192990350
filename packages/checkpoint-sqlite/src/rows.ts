import {
  type CheckpointRecord,
  type ChunkRecord,
  CorruptCheckpointError,
  epochMsOf,
  type ThreadInfo,
  threadInfoOf,
} from '@flow/core';

/** A read of `flow_checkpoints` as the driver returns it: the columns of `READ_COLUMNS` (statements.ts), in order. */
export type CheckpointRow = [
  step: number,
  revision: number,
  ts: string,
  next: string,
  interrupted: number,
  interruptNode: string | null,
  /** `null` stands for the text `'null'` (see `READ_COLUMNS`). */
  interruptPayload: string | null,
  state: string,
  error: string | null,
  /** `null` stands for `'{}'` (see `READ_COLUMNS`). */
  meta: string | null,
  /** JSON array of chunk ids; `null` for a whole-state record (every row written before chunks existed). */
  refs: string | null,
];

/** A `flow_chunks` row as `chunksOf` selects it. */
export type ChunkRow = [id: string, data: string];

/** A `flow_threads` row: thread, latest_step, interrupted, done, ts, error. */
export type ThreadRow = [
  thread: string,
  latestStep: number,
  interrupted: number,
  done: number,
  ts: string,
  error: string | null,
];

/** A write's values, in the order of `COLUMNS` (statements.ts); SQLite binds no booleans, so they become 0/1. */
export type WriteValues = [
  thread: string,
  step: number,
  ts: string,
  tsMs: number,
  next: string,
  interrupted: number,
  interruptNode: string | null,
  interruptPayload: string,
  state: string,
  error: string | null,
  meta: string,
  refs: string | null,
];

/** The last frontier written, frozen, and its text: a graph's steps mostly repeat one, so it is made once. */
let writtenNext: readonly string[] = Object.freeze([]);
let writtenNextText = '[]';

/** `JSON.stringify(next)`; the same names as the last put's reuse its text (0.15-0.2 us a put). */
function nextText(next: readonly string[]): string {
  if (next !== writtenNext) {
    let same = next.length === writtenNext.length;
    for (let i = 0; same && i < next.length; i++) same = next[i] === writtenNext[i];
    if (!same) {
      writtenNextText = JSON.stringify(next);
      // Kept only frozen, so the names compared next time are the ones the text was made of.
      writtenNext = Object.isFrozen(next) ? next : Object.freeze([...next]);
    }
  }
  return writtenNextText;
}

/** The values a put binds. */
export function writeValues(record: CheckpointRecord): WriteValues {
  return [
    record.thread,
    record.step,
    record.ts,
    epochMsOf(record.ts),
    nextText(record.next),
    record.interrupted ? 1 : 0,
    record.interruptNode,
    record.interruptPayload,
    record.state,
    record.error,
    record.meta,
    hasRefs(record) ? JSON.stringify(record.refs) : null,
  ];
}

/** Whether a record references chunks (else its `state` is the whole state). */
export function hasRefs(record: CheckpointRecord): boolean {
  return record.refs !== undefined && record.refs.length > 0;
}

function parseRefs(text: string): string[] {
  const refs: unknown = JSON.parse(text);
  if (!Array.isArray(refs) || refs.some((id) => typeof id !== 'string')) {
    throw new Error('refs is not an array of chunk ids');
  }
  return refs;
}

const NO_NODES: readonly string[] = Object.freeze([]);
/** The last frontier read, frozen, and its text: a graph's steps mostly repeat one, so it is parsed once. */
let lastNextText = '[]';
let lastNext = NO_NODES;

/** A frozen list, which core's `Checkpoint` keeps as it is rather than copying. */
function parseNext(text: unknown): readonly string[] {
  if (text === lastNextText) return lastNext;
  const next: unknown = typeof text === 'string' ? JSON.parse(text) : undefined;
  // Core's Checkpoint checks the names, but would read a missing list (`null`) as an empty one.
  if (!Array.isArray(next)) throw new Error('next is not a list of node names');
  // The same text always parses to the same list, so keeping it is safe even for one core then rejects.
  lastNextText = text as string;
  lastNext = Object.freeze(next as string[]);
  return lastNext;
}

/**
 * Turns a row into a record. Columns the serializer does not read (`next`, `refs`, the text columns' types) are
 * checked here, so an edited or damaged row becomes a `CorruptCheckpointError` naming it (`locate` is called
 * only then, keeping reads free of string building), not a crash later. What core's `Checkpoint` checks
 * anyway (the node names, `ts`) is left to it: a bad one becomes the same error there.
 */
export function rowToRecord(
  thread: string,
  row: CheckpointRow,
  locate: (thread: string, step: number) => string,
  chunks?: readonly ChunkRecord[],
): CheckpointRecord {
  const [step, revision, ts, next, interrupted, interruptNode, interruptPayload, state, error, meta, refs] =
    row;
  try {
    if (typeof state !== 'string' || (typeof interruptPayload !== 'string' && interruptPayload !== null)) {
      throw new Error('state or interrupt payload is not text');
    }
    if (refs !== null && typeof refs !== 'string') throw new Error('refs is not text');
    const record: CheckpointRecord = {
      thread,
      step,
      state,
      next: parseNext(next),
      interrupted: interrupted === 1,
      interruptNode,
      interruptPayload: interruptPayload ?? 'null',
      ts,
      revision,
      error,
      meta: meta ?? '{}',
    };
    if (refs !== null) {
      record.refs = parseRefs(refs);
      record.chunks = chunks ?? [];
    }
    return record;
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CorruptCheckpointError(locate(thread, step), detail, { cause: error, backend: 'sqlite' });
  }
}

/** Turns a summary row into a `ThreadInfo`. */
export function rowToThreadInfo([thread, step, interrupted, done, ts, error]: ThreadRow): ThreadInfo {
  // The summary keeps `done`, not the frontier: an unfinished run stands in with a one-node frontier.
  return threadInfoOf({
    thread,
    step,
    next: done === 1 ? [] : UNFINISHED,
    interrupted: interrupted === 1,
    error,
    ts,
  });
}

// Stryker disable next-line StringLiteral: only its length matters (done is false); no caller sees the name
const UNFINISHED: readonly string[] = [''];
