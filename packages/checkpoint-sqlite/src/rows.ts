import { type CheckpointRecord, CorruptCheckpointError, type ThreadInfo } from '@flow/core';

/** A `flow_checkpoints` row as the driver returns it. */
export interface CheckpointRow {
  thread: string;
  step: number;
  revision: number;
  ts: string;
  next: string;
  interrupted: number;
  interrupt_node: string | null;
  interrupt_payload: string;
  state: string;
}

/** A `flow_threads` row. */
export interface ThreadRow {
  thread: string;
  latest_step: number;
  interrupted: number;
  done: number;
  ts: string;
}

/** The named parameters of a write (SQLite binds no booleans: they become 0/1). */
export function writeParams(record: CheckpointRecord) {
  const done = record.next.length === 0 && !record.interrupted;
  return {
    thread: record.thread,
    step: record.step,
    ts: record.ts,
    tsMs: Date.parse(record.ts),
    next: JSON.stringify(record.next),
    interrupted: record.interrupted ? 1 : 0,
    done: done ? 1 : 0,
    interruptNode: record.interruptNode,
    interruptPayload: record.interruptPayload,
    state: record.state,
  };
}

function parseNext(text: unknown): string[] {
  const next: unknown = typeof text === 'string' ? JSON.parse(text) : undefined;
  if (!Array.isArray(next) || next.some((n) => typeof n !== 'string')) {
    throw new Error('next is not an array of node names');
  }
  return next;
}

/**
 * Turns a row into a record. Columns the serializer does not read (`next`, the text columns' types) are
 * checked here, so an edited or damaged row becomes a `CorruptCheckpointError` naming it (`locate` is called
 * only then, keeping reads free of string building), not a crash later.
 */
export function rowToRecord(
  row: CheckpointRow,
  locate: (thread: string, step: number) => string,
): CheckpointRecord {
  try {
    if (typeof row.state !== 'string' || typeof row.interrupt_payload !== 'string') {
      throw new Error('state or interrupt payload is not text');
    }
    if (typeof row.ts !== 'string') throw new Error('ts is not text');
    return {
      thread: row.thread,
      step: row.step,
      state: row.state,
      next: parseNext(row.next),
      interrupted: row.interrupted === 1,
      interruptNode: row.interrupt_node,
      interruptPayload: row.interrupt_payload,
      ts: row.ts,
      revision: row.revision,
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new CorruptCheckpointError(locate(row.thread, row.step), detail, {
      cause: error,
      backend: 'sqlite',
    });
  }
}

/** Turns a summary row into a `ThreadInfo`. */
export function rowToThreadInfo(row: ThreadRow): ThreadInfo {
  return {
    thread: row.thread,
    latestStep: row.latest_step,
    interrupted: row.interrupted === 1,
    done: row.done === 1,
    ts: row.ts,
  };
}
