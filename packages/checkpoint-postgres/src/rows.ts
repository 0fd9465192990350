import {
  type CheckpointRecord,
  type Lease,
  type ThreadInfo,
  threadInfoFromSummary,
  type WriteRecord,
} from '@flow/core';
import { fromEpochMs } from './timestamp.js';

/** A checkpoint row as the statements select it. */
export interface CheckpointRow {
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

export function toRecord(thread: string, row: CheckpointRow): CheckpointRecord {
  return {
    thread,
    step: row.step,
    state: row.state,
    next: JSON.parse(row.next) as string[],
    interrupted: row.interrupted,
    interruptNode: row.interrupt_node,
    interruptPayload: row.interrupt_payload,
    ts: fromEpochMs(row.ts),
    // float8 in SQL; Number() still copes with a pool whose type parsers return strings.
    revision: Number(row.revision),
    error: row.error,
    meta: row.meta,
  };
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
