import {
  type CheckpointRecord,
  type ChunkRecord,
  type Lease,
  type ThreadInfo,
  threadInfoFromSummary,
  type WriteRecord,
} from '@flow/core';
import { fromEpochMs } from './timestamp.js';

/** A checkpoint row as a `withChunks` statement selects it. */
export interface CheckpointRow extends RecordRow {
  /** Set on the rows that are chunks (id; data in `state`), null on checkpoints. */
  chunk: string | null;
}

/** A checkpoint row as a `withChunks` read selects it, chunk aside (see `HeadRow` for `getLatest`, `getStep`). */
export interface RecordRow {
  step: number;
  revision: number;
  state: string;
  next: string;
  interrupted: boolean;
  interrupt_node: string | null;
  interrupt_payload: string;
  ts: number;
  error: string | null;
  meta: string;
  /** The chunk ids the state references, joined by spaces, or null for a whole state. */
  refs: string | null;
}

/**
 * A checkpoint row as a read of the checkpoint alone (`getLatest`, `getStep`) selects it: the state, and in
 * `head` the JSON array [step, revision, next, interrupted, interrupt_node, interrupt_payload, ts, error, meta,
 * refs] (next as a JSON array, the rest as `RecordRow` has them).
 */
export interface HeadRow {
  head: string;
  state: string;
}

/** A thread summary row as listThreads selects it: the id and core's summary text. */
export interface ThreadRow {
  thread: string;
  info: string;
}

/** A lease row as the statements select it. */
export interface LeaseRow {
  owner: string;
  host: string;
  pid: number;
  expires_at: number;
}

/**
 * The checkpoints of a read (rows of a `withChunks` statement), newest first, each with the chunks its refs
 * name (a missing one simply absent: core reports it).
 */
export function toRecords(thread: string, rows: readonly CheckpointRow[]): CheckpointRecord[] {
  const records: CheckpointRecord[] = [];
  const chunks = new Map<string, ChunkRecord>();
  for (const row of rows) {
    if (row.chunk === null) records.push(toRecord(thread, row));
    else chunks.set(row.chunk, { id: row.chunk, data: row.state });
  }
  if (chunks.size > 0) {
    for (const record of records) {
      if (record.refs === undefined) continue;
      const found: ChunkRecord[] = [];
      for (const id of record.refs) {
        const chunk = chunks.get(id);
        if (chunk !== undefined) found.push(chunk);
      }
      record.chunks = found;
    }
  }
  // UNION ALL keeps no order by itself.
  return records.length > 1 ? records.sort((a, b) => b.step - a.step) : records;
}

/** The record of one checkpoint row; a linear one (refs set) gets its chunks from `toRecords`. */
export function toRecord(thread: string, row: RecordRow): CheckpointRecord {
  return recordOf(thread, row, JSON.parse(row.next) as string[]);
}

/** `HeadRow.head`, parsed. */
type HeadFields = [
  step: number,
  revision: number,
  next: string[],
  interrupted: boolean,
  interruptNode: string | null,
  interruptPayload: string,
  ts: number,
  error: string | null,
  meta: string,
  refs: string | null,
];

/** The record of a `HeadRow`; a linear one (refs set) is read again with its chunks. */
export function headToRecord(thread: string, row: HeadRow): CheckpointRecord {
  const h = JSON.parse(row.head) as HeadFields;
  const fields = {
    step: h[0],
    revision: h[1],
    state: row.state,
    interrupted: h[3],
    interrupt_node: h[4],
    interrupt_payload: h[5],
    ts: h[6],
    error: h[7],
    meta: h[8],
    refs: h[9],
  };
  return recordOf(thread, fields, h[2]);
}

function recordOf(thread: string, row: Omit<RecordRow, 'next'>, next: string[]): CheckpointRecord {
  const record: CheckpointRecord = {
    thread,
    step: row.step,
    state: row.state,
    next,
    interrupted: row.interrupted,
    interruptNode: row.interrupt_node,
    interruptPayload: row.interrupt_payload,
    ts: fromEpochMs(row.ts),
    // float8 in SQL; Number() still copes with a pool whose type parsers return strings.
    revision: Number(row.revision),
    error: row.error,
    meta: row.meta,
  };
  if (row.refs !== null) {
    record.refs = row.refs === '' ? [] : row.refs.split(' ');
    record.chunks = [];
  }
  return record;
}

export function toThreadInfo(row: ThreadRow): ThreadInfo {
  return threadInfoFromSummary(row.thread, row.info);
}

export function toLease(thread: string, row: LeaseRow): Lease {
  return {
    thread,
    owner: row.owner,
    host: row.host,
    pid: Number(row.pid),
    expiresAt: fromEpochMs(row.expires_at),
  };
}

export function toWrite(row: WriteRecord): WriteRecord {
  return { node: row.node, key: row.key, value: row.value };
}
