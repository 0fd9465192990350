import type { CheckpointRecord, ThreadInfo } from '@flow/core';
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
  };
}

export function toThreadInfo(row: ThreadRow): ThreadInfo {
  return {
    thread: row.thread,
    latestStep: row.latest_step,
    interrupted: row.interrupted,
    done: row.done,
    ts: fromEpochMs(row.ts),
  };
}
