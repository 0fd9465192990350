import {
  type CheckpointRecord,
  type ChunkRecord,
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
  /** JSON array of chunk ids; NULL for a whole state (every row written before chunks existed). */
  refs: string | null;
}

/**
 * A row of a read (statements.ts `withChunks`): a checkpoint (`kind` 0, chunk columns NULL) or a chunk one
 * of them references (`kind` 1, checkpoint columns NULL).
 */
export type ReadRow =
  | (CheckpointRow & { kind: 0 | '0' })
  | { kind: 1 | '1'; chunk_id: string; chunk_data: string };

/** The checkpoints of a read, in the order of `rows`, with the chunks the read brought. */
export function splitRead(
  thread: string,
  rows: readonly ReadRow[],
  locate: (step: number) => string,
): CheckpointRecord[] {
  const records: CheckpointRecord[] = [];
  const chunks: ChunkRecord[] = [];
  for (const row of rows) {
    if (Number(row.kind) === 1) {
      const chunk = row as { chunk_id: string; chunk_data: string };
      chunks.push({ id: chunk.chunk_id, data: chunk.chunk_data });
    } else {
      const r = row as CheckpointRow;
      records.push(toRecord(thread, r, locate(Number(r.step))));
    }
  }
  // Every linear record gets the chunks of the whole read: core looks up only the ids it references.
  for (const record of records) if (record.refs !== undefined) record.chunks = chunks;
  return records;
}

function parseRefs(text: string, location: string): string[] {
  try {
    const refs: unknown = JSON.parse(text);
    if (Array.isArray(refs) && refs.every((id) => typeof id === 'string')) return refs;
  } catch {
    // reported below
  }
  throw new CorruptCheckpointError(location, 'refs is not a JSON array of chunk ids', { backend: 'mysql' });
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
  const record: CheckpointRecord = {
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
  if (row.refs !== null) record.refs = parseRefs(row.refs, location);
  return record;
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
