import { type CheckpointRecord, type ThreadInfo, threadInfoOf } from '@flow/core';

/** The small fields of a checkpoint, stored together as JSON next to state and payload. */
interface Meta {
  ts: string;
  next: string[];
  interrupted: boolean;
  interruptNode: string | null;
}

/** Encodes the fields that are neither state nor payload. */
export function encodeMeta(record: CheckpointRecord): string {
  const meta: Meta = {
    ts: record.ts,
    next: [...record.next],
    interrupted: record.interrupted,
    interruptNode: record.interruptNode,
  };
  return JSON.stringify(meta);
}

/** Why a stored entry could not be read; the caller names the key. */
export class UnreadableEntry extends Error {}

function parseMeta(text: unknown): Meta {
  if (typeof text !== 'string') throw new UnreadableEntry('the meta field is missing');
  let meta: Partial<Meta>;
  try {
    meta = JSON.parse(text) as Partial<Meta>;
  } catch (error) {
    throw new UnreadableEntry(`the meta field is not JSON: ${(error as Error).message}`);
  }
  if (
    typeof meta !== 'object' ||
    meta === null ||
    typeof meta.ts !== 'string' ||
    !Array.isArray(meta.next) ||
    typeof meta.interrupted !== 'boolean'
  ) {
    throw new UnreadableEntry('the meta field lacks ts, next or interrupted');
  }
  return meta as Meta;
}

/**
 * Rebuilds one record from a READ group (step, revision, meta, state, payload). Throws `UnreadableEntry`
 * when a field is missing or malformed; state and payload are checked later by the serializer.
 */
export function decodeRow(thread: string, row: readonly unknown[]): CheckpointRecord {
  const [step, revision, metaText, state, payload] = row;
  if (typeof state !== 'string') throw new UnreadableEntry('the state field is missing');
  if (typeof payload !== 'string') throw new UnreadableEntry('the payload field is missing');
  const meta = parseMeta(metaText);
  return {
    thread,
    step: Number(step),
    state,
    next: meta.next,
    interrupted: meta.interrupted,
    interruptNode: meta.interruptNode ?? null,
    interruptPayload: payload,
    ts: meta.ts,
    revision: Number(revision),
    // Not stored by this layout yet: every record reads as not failed, without meta.
    error: null,
    meta: '{}',
  };
}

const UNFINISHED: readonly string[] = [''];

/** Rebuilds one summary from a THREADS group (thread, step, status, ts). */
export function decodeThread(row: readonly unknown[]): ThreadInfo {
  const [thread, step, status, ts] = row;
  if (typeof step !== 'string' || typeof ts !== 'string') {
    throw new UnreadableEntry('the summary lacks step or ts');
  }
  if (status !== 'running' && status !== 'interrupted' && status !== 'done') {
    throw new UnreadableEntry(`the summary has an unknown status ${JSON.stringify(status)}`);
  }
  // The summary keeps the status, not the frontier: an unfinished run stands in with a one-node frontier.
  return threadInfoOf({
    thread: String(thread),
    step: Number(step),
    next: status === 'done' ? [] : UNFINISHED,
    interrupted: status === 'interrupted',
    error: null,
    ts,
  });
}

/** Splits a flat script reply into groups of `size`. */
export function groups(reply: unknown, size: number): unknown[][] {
  const flat = reply as unknown[];
  const out: unknown[][] = [];
  for (let i = 0; i < flat.length; i += size) out.push(flat.slice(i, i + size));
  return out;
}
