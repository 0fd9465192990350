import type { CheckpointRecord, ChunkRecord, Lease, WriteRecord } from '@flow/core';

/** The small fields of a checkpoint, stored together as JSON next to state and payload. */
interface Meta {
  ts: string;
  next: string[];
  interrupted: boolean;
  interruptNode: string | null;
  /** The record's error and meta as their JSON text; absent in records written before they existed. */
  error?: string | null;
  meta?: string;
}

/** Encodes the fields that are neither state nor payload. */
export function encodeMeta(record: CheckpointRecord): string {
  const meta: Meta = {
    ts: record.ts,
    next: [...record.next],
    interrupted: record.interrupted,
    interruptNode: record.interruptNode,
    error: record.error,
    meta: record.meta,
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
 * Rebuilds one record from a READ group (step, revision, meta, state, payload, refs). Throws `UnreadableEntry`
 * when a field is missing or malformed; state and payload are checked later by the serializer.
 */
export function decodeRow(thread: string, row: readonly unknown[]): CheckpointRecord {
  const [step, revision, metaText, state, payload, refs] = row;
  if (typeof state !== 'string') throw new UnreadableEntry('the state field is missing');
  if (typeof payload !== 'string') throw new UnreadableEntry('the payload field is missing');
  const meta = parseMeta(metaText);
  const record: CheckpointRecord = {
    thread,
    step: Number(step),
    state,
    next: meta.next,
    interrupted: meta.interrupted,
    interruptNode: meta.interruptNode ?? null,
    interruptPayload: payload,
    ts: meta.ts,
    revision: Number(revision),
    error: meta.error ?? null,
    meta: meta.meta ?? '{}',
  };
  if (typeof refs === 'string') record.refs = refs === '' ? [] : refs.split(',');
  return record;
}

/** Joins chunk ids for the `N:f` field: ids never hold a comma. */
export function encodeRefs(refs: readonly string[] | undefined): string {
  return refs === undefined ? '' : refs.join(',');
}

/**
 * Gives each record the chunks (from a READ reply's flat (id, data) pairs) that its refs name; a missing one
 * is simply absent, for core to report.
 */
export function attachChunks(records: CheckpointRecord[], pairs: readonly unknown[]): CheckpointRecord[] {
  if (pairs.length === 0) {
    for (const record of records) if (record.refs !== undefined) record.chunks = [];
    return records;
  }
  const byId = new Map<string, ChunkRecord>();
  for (let i = 0; i < pairs.length; i += 2) {
    const id = String(pairs[i]);
    byId.set(id, { id, data: String(pairs[i + 1]) });
  }
  for (const record of records) {
    if (record.refs === undefined) continue;
    const found: ChunkRecord[] = [];
    for (const id of record.refs) {
      const chunk = byId.get(id);
      if (chunk !== undefined) found.push(chunk);
    }
    record.chunks = found;
  }
  return records;
}

/** The hash field of a write: node and key joined by U+0000, which neither may hold. */
export function writeField(write: { node: string; key: string }): string {
  return `${write.node}\u0000${write.key}`;
}

/** Flattens writes into the (field, value) pairs the scripts take. */
export function writeArgs(writes: readonly WriteRecord[]): string[] {
  const args: string[] = [];
  for (const w of writes) args.push(writeField(w), w.value);
  return args;
}

/** Rebuilds writes from a writes hash (flat field/value array), in no particular order. */
export function decodeWrites(reply: unknown): WriteRecord[] {
  return groups(reply, 2).map(([field, value]) => {
    const text = String(field);
    const cut = text.indexOf('\u0000');
    if (cut === -1 || typeof value !== 'string') throw new UnreadableEntry(`a write field is malformed`);
    return { node: text.slice(0, cut), key: text.slice(cut + 1), value };
  });
}

/** Rebuilds a lease from (owner, host, pid, expires ms), or undefined when the key is gone. */
export function decodeLease(thread: string, reply: unknown): Lease | undefined {
  const [owner, host, pid, exp] = reply as unknown[];
  if (owner === null || owner === undefined) return undefined;
  return {
    thread,
    owner: String(owner),
    host: String(host),
    pid: Number(pid),
    expiresAt: new Date(Number(exp)).toISOString(),
  };
}

/** Splits a flat script reply into groups of `size`. */
export function groups(reply: unknown, size: number): unknown[][] {
  const flat = reply as unknown[];
  const out: unknown[][] = [];
  for (let i = 0; i < flat.length; i += size) out.push(flat.slice(i, i + size));
  return out;
}
