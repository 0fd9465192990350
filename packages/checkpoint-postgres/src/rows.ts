import { type CheckpointRecord, type ThreadInfo, threadInfoOf } from '@flow/core';
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
}

/** A thread summary row as the statements select it. */
export interface ThreadRow {
  thread: string;
  latest_step: number;
  interrupted: boolean;
  done: boolean;
  ts: number;
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
    // Not stored by this schema yet: every record reads as not failed, without meta.
    error: null,
    meta: '{}',
  };
}

/** The summary keeps `done`, not the frontier: an unfinished run stands in with a one-node frontier. */
const UNFINISHED: readonly string[] = [''];

export function toThreadInfo(row: ThreadRow): ThreadInfo {
  return threadInfoOf({
    thread: row.thread,
    step: row.latest_step,
    next: row.done ? [] : UNFINISHED,
    interrupted: row.interrupted,
    error: null,
    ts: fromEpochMs(row.ts),
  });
}
