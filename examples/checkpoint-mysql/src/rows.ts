import {
  type CheckpointRecord,
  CorruptCheckpointError,
  type Lease,
  type ThreadInfo,
  threadInfoOf,
} from '@flow/core';

/** A checkpoint row as the statements select it (mysql2 returns BIGINT as number, BOOLEAN as 0/1). */
export interface CheckpointRow {
  step: number;
  revision: number | string;
  ts_ms: number | string;
  next: string;
  interrupted: number;
  interrupt_node: string | null;
  interrupt_payload: string;
  state: string;
  /** NULL: not failed (and in rows written before the column existed). */
  error: string | null;
  /** NULL in rows written before the column existed: meta `{}`. */
  meta: string | null;
}

/** A thread summary row. */
export interface ThreadRow {
  thread: string;
  latest_step: number;
  interrupted: number;
  done: number;
  error: string | null;
  ts_ms: number | string;
}

/** A lease row, expiry as epoch milliseconds (by the server's clock). */
export interface LeaseRow {
  owner: string;
  host: string;
  pid: number;
  expires_ms: number | string;
}

function parseNext(text: string, location: string): string[] {
  try {
    const next: unknown = JSON.parse(text);
    if (Array.isArray(next) && next.every((n) => typeof n === 'string')) return next;
  } catch {
    // reported below, like any other unreadable value
  }
  // The stored text is not quoted: a damaged row may hold anything, secrets included.
  throw new CorruptCheckpointError(location, 'next is not a JSON array of strings', { backend: 'mysql' });
}

/** A row as the record `BaseCheckpointer` decodes (state and payload stay serialized text). */
export function toRecord(thread: string, row: CheckpointRow, location: string): CheckpointRecord {
  return {
    thread,
    step: Number(row.step),
    revision: Number(row.revision),
    ts: new Date(Number(row.ts_ms)).toISOString(),
    next: parseNext(row.next, location),
    interrupted: Boolean(row.interrupted),
    interruptNode: row.interrupt_node,
    interruptPayload: row.interrupt_payload,
    state: row.state,
    error: row.error,
    meta: row.meta ?? '{}',
  };
}

/** The summary keeps `done`, not the frontier: an unfinished run stands in with a one-node frontier. */
const UNFINISHED: readonly string[] = [''];

export function toThreadInfo(row: ThreadRow): ThreadInfo {
  return threadInfoOf({
    thread: row.thread,
    step: Number(row.latest_step),
    next: row.done ? [] : UNFINISHED,
    interrupted: Boolean(row.interrupted),
    error: row.error,
    ts: new Date(Number(row.ts_ms)).toISOString(),
  });
}

export function toLease(thread: string, row: LeaseRow): Lease {
  return {
    thread,
    owner: row.owner,
    host: row.host,
    pid: Number(row.pid),
    expiresAt: new Date(Number(row.expires_ms)).toISOString(),
  };
}
