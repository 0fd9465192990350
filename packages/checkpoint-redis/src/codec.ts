import {
  type CheckpointRecord,
  type ChunkRecord,
  canonicalEpochMsOf,
  type Lease,
  type WriteRecord,
} from '@flow/core';

/** The small fields of a checkpoint, stored together as JSON next to state and payload. */
interface Meta {
  ts: string;
  next: string[];
  interrupted: boolean;
  interruptNode?: string | null;
  /** The record's error and meta as their JSON text; absent in records written before they existed. */
  error?: string | null;
  meta?: string;
}

/**
 * Encodes the fields that are neither state nor payload, for a packed step whose header holds the instant of
 * `record.ts`. Only what differs from a default is written: `ts` when it is not `canonical` (the instant's own
 * `toISOString()` text, which it always is for a stamped or normalised ts), `interrupted` when true,
 * `interruptNode` and `error` when not null, `meta` when not `{}`. A step of a plain run is then
 * `{"next":[...]}` and its meta, 50 to 60 bytes fewer than all fields.
 */
export function encodeMeta(record: CheckpointRecord, canonical: boolean): string {
  const meta: Partial<Meta> = { next: record.next as string[] };
  if (!canonical) meta.ts = record.ts;
  if (record.interrupted) meta.interrupted = true;
  if (record.interruptNode !== null) meta.interruptNode = record.interruptNode;
  if (record.error !== null) meta.error = record.error;
  if (record.meta !== '{}') meta.meta = record.meta;
  return JSON.stringify(meta);
}

/** The canonical timestamp of `epochMs`, or undefined when it is no time. */
function isoOf(epochMs: number): string | undefined {
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Why a stored entry could not be read; the caller names the key. */
export class UnreadableEntry extends Error {}

/** Parses a meta JSON; `defaults` are what a packed step leaves out (see `encodeMeta`). */
function parseMeta(text: unknown, defaults?: { ts: string | undefined; interrupted: false }): Meta {
  if (typeof text !== 'string') throw new UnreadableEntry('the meta field is missing');
  let meta: Partial<Meta>;
  try {
    meta = JSON.parse(text) as Partial<Meta>;
  } catch (error) {
    throw new UnreadableEntry(`the meta field is not JSON: ${(error as Error).message}`);
  }
  if (defaults !== undefined && typeof meta === 'object' && meta !== null) {
    meta.ts ??= defaults.ts;
    meta.interrupted ??= defaults.interrupted;
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

/** How a step's state is stored: in its packed field (`s`), or in a key of its own (`k`, a large one). */
export type StateKind = 's' | 'k';

/**
 * What the put script stores for a step behind `<revision> ` (layout 6): one hash field per step instead of
 * six, since each field of a hash that outgrew its listpack costs some 60 bytes beyond its text.
 * `<epoch ms> <kind> <payload length> <refs>` NL `<meta JSON>` (see `encodeMeta`) NL `<payload><state>`: the header is digits,
 * one letter and chunk ids (`[0-9A-Za-z._-]`, comma-separated), and JSON text never holds a raw newline, so
 * the payload, whose length (in UTF-16 units) the header gives, is the only part that may hold anything.
 * Lua reads only the header (revision, epoch ms, kind, refs); the rest is split here.
 * `revision` is the one the put expects to write (ifRevision + 1, or 1 for a new step): the script stores the
 * text as it came when it is, and puts the right one in its place when not.
 */
export function packStep(record: CheckpointRecord, kind: StateKind, revision: number): string {
  const payload = record.interruptPayload;
  const canonical = canonicalEpochMsOf(record.ts);
  const epochMs = canonical ?? Date.parse(record.ts);
  const head = `${revision} ${epochMs} ${kind} ${payload.length} ${encodeRefs(record.refs)}`;
  return `${head}\n${encodeMeta(record, canonical !== undefined)}\n${payload}${kind === 's' ? record.state : ''}`;
}

/** Splits a packed step (see `packStep`, revision first); `largeState` is its state key's text, if any. */
function unpackStep(thread: string, step: number, packed: string, largeState: unknown): CheckpointRecord {
  const headEnd = packed.indexOf('\n');
  const metaEnd = headEnd === -1 ? -1 : packed.indexOf('\n', headEnd + 1);
  const head = packed.slice(0, headEnd).split(' ');
  const payloadLength = Number(head[3]);
  if (metaEnd === -1 || head.length !== 5 || !Number.isInteger(payloadLength) || payloadLength < 0) {
    throw new UnreadableEntry('the step field is malformed');
  }
  const payloadEnd = metaEnd + 1 + payloadLength;
  if (payloadEnd > packed.length) throw new UnreadableEntry('the step field is cut off');
  let state: unknown = packed.slice(payloadEnd);
  if (head[2] === 'k') state = largeState;
  else if (head[2] !== 's') throw new UnreadableEntry('the step field is malformed');
  const refs = head[4]!;
  const meta = parseMeta(packed.slice(headEnd + 1, metaEnd), {
    ts: isoOf(Number(head[1])),
    interrupted: false,
  });
  const payload = packed.slice(metaEnd + 1, payloadEnd);
  return buildRecord(thread, step, head[0], meta, state, payload, refs === '' ? undefined : refs);
}

function buildRecord(
  thread: string,
  step: number,
  revision: unknown,
  meta: Meta,
  state: unknown,
  payload: unknown,
  refs: unknown,
): CheckpointRecord {
  if (typeof state !== 'string') throw new UnreadableEntry('the state field is missing');
  if (typeof payload !== 'string') throw new UnreadableEntry('the payload field is missing');
  const record: CheckpointRecord = {
    thread,
    step,
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

/**
 * Rebuilds one record from a READ group (step, packed field, state, then the fields of a step stored before
 * layout 6: revision, meta, payload, refs). Throws `UnreadableEntry` when a field is missing or malformed;
 * state and payload are checked later by the serializer.
 */
export function decodeRow(thread: string, row: readonly unknown[]): CheckpointRecord {
  const [step, packed, state, revision, metaText, payload, refs] = row;
  if (typeof packed === 'string') return unpackStep(thread, Number(step), packed, state);
  return buildRecord(thread, Number(step), revision, parseMeta(metaText), state, payload, refs);
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
