import { open, readFile } from 'node:fs/promises';
import { type CheckpointRecord, redactDecodeError } from '@flow/core';
import { corrupt, parseFileHeader } from './file-header.js';
import { isStageName } from './layout.js';
import { hasCode } from './private-fs.js';

/**
 * What a step file says about itself, before the two serialized fields. The file is one JSON object:
 * these fields first, then `"interruptPayload"` and `"state"` last, their sizes in bytes given up front,
 * so a reader can take the header alone (revision, `listThreads`) or slice the two texts without parsing
 * them twice.
 */
export interface StepHeader {
  /**
   * 2 since runs record `error` and `meta`; a format-1 file (written before) reads as error null, meta `{}`.
   * 3: a linear state, whose `state` references the chunk files of `refs` (a reader that knows only formats
   * 1 and 2 refuses such a file rather than take its `state` for the whole state). A format-3 file leaves
   * out the fields that hold their usual value (`FORMAT_3_DEFAULTS`): a thread stores one file per step.
   */
  format: 1 | 2 | 3;
  thread: string;
  step: number;
  revision: number;
  ts: string;
  next: string[];
  interrupted: boolean;
  interruptNode: string | null;
  /** JSON text of the run's error, or null (absent in format 1). */
  error?: string | null;
  /** JSON text of the checkpoint's meta (absent in format 1). */
  meta?: string;
  /**
   * The staging directory holding the writes put with this checkpoint, until they are published into
   * `writes/` (see write-files.ts). Absent when the put had no writes.
   */
  staged?: string;
  /** The ids of the chunks the state references (format 3 only, never empty). */
  refs?: string[];
  /** `true`: the two fields hold JSON strings wrapping the serializer's text; `false`: the text itself. */
  text: boolean;
  payloadBytes: number;
  stateBytes: number;
}

/** What a format-3 header means by a field it leaves out. */
const FORMAT_3_DEFAULTS = { interrupted: false, interruptNode: null, error: null, text: false } as const;

const PAYLOAD_MARK = Buffer.from(',"interruptPayload":');
const STATE_MARK = Buffer.from(',"state":');
/** Most headers fit here; a longer one (a huge `next`, say) is read whole. */
const HEADER_CHUNK = 16 * 1024;

/**
 * The bytes of a step file. `rawJson` says the serializer's output is JSON (the default serializer's
 * is) and goes in as it is; other text is wrapped in a JSON string so the file stays valid JSON.
 */
export function encodeStepFile(
  record: CheckpointRecord,
  revision: number,
  rawJson: boolean,
  staged?: string,
): Buffer {
  const payload = rawJson ? record.interruptPayload : JSON.stringify(record.interruptPayload);
  const state = rawJson ? record.state : JSON.stringify(record.state);
  const linear = record.refs !== undefined && record.refs.length > 0;
  const header: StepHeader = {
    format: linear ? 3 : 2,
    thread: record.thread,
    step: record.step,
    revision,
    ts: record.ts,
    next: [...record.next],
    interrupted: record.interrupted,
    interruptNode: record.interruptNode,
    error: record.error,
    meta: record.meta,
    ...(staged === undefined ? {} : { staged }),
    ...(linear ? { refs: [...record.refs!] } : {}),
    text: !rawJson,
    payloadBytes: Buffer.byteLength(payload),
    stateBytes: Buffer.byteLength(state),
  };
  if (linear) {
    for (const [key, value] of Object.entries(FORMAT_3_DEFAULTS)) {
      if (header[key as keyof StepHeader] === value) delete header[key as keyof StepHeader];
    }
  }
  const head = JSON.stringify(header);
  return Buffer.from(`${head.slice(0, -1)},"interruptPayload":${payload},"state":${state}}\n`);
}

/**
 * Parses the header at the start of `buf`. Inside a JSON string every `"` follows a `\`, so the first
 * `,"interruptPayload":` in the file is the end of the header.
 */
function parseHeader(
  buf: Buffer,
  path: string,
  thread: string | undefined,
  step: number,
): [StepHeader, number] {
  const [parsed, end] = parseFileHeader(
    buf,
    PAYLOAD_MARK,
    path,
    'not a step file (no interruptPayload field)',
  );
  let h = parsed as StepHeader;
  if (typeof h === 'object' && h !== null && h.format === 3) h = { ...FORMAT_3_DEFAULTS, ...h };
  const ok =
    typeof h === 'object' &&
    h !== null &&
    (h.format === 1 || h.format === 2 || h.format === 3) &&
    typeof h.ts === 'string' &&
    Number.isSafeInteger(h.revision) &&
    h.revision > 0 &&
    Array.isArray(h.next) &&
    h.next.every((n) => typeof n === 'string') &&
    typeof h.interrupted === 'boolean' &&
    (h.interruptNode === null || typeof h.interruptNode === 'string') &&
    typeof h.text === 'boolean' &&
    Number.isSafeInteger(h.payloadBytes) &&
    h.payloadBytes >= 0 &&
    Number.isSafeInteger(h.stateBytes) &&
    h.stateBytes >= 0 &&
    (h.format === 1 ||
      ((h.error === null || typeof h.error === 'string') &&
        typeof h.meta === 'string' &&
        (h.staged === undefined || isStageName(h.staged)) &&
        (h.format === 2
          ? h.refs === undefined
          : Array.isArray(h.refs) && h.refs.length > 0 && h.refs.every((id) => typeof id === 'string'))));
  if (!ok) throw corrupt(path, 'malformed header');
  if (typeof h.thread !== 'string' || (thread !== undefined && h.thread !== thread) || h.step !== step) {
    throw corrupt(path, `holds thread ${JSON.stringify(h.thread)} step ${h.step}, not this one`);
  }
  return [h, end];
}

/**
 * Reads only the header of a step file (its revision, ts, status), never its state.
 * `undefined` when the file does not exist. `thread` undefined: any thread (the caller checks it).
 */
export async function readStepHeader(
  path: string,
  thread: string | undefined,
  step: number,
): Promise<StepHeader | undefined> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  try {
    const chunk = Buffer.allocUnsafe(HEADER_CHUNK);
    const { bytesRead } = await fh.read(chunk, 0, HEADER_CHUNK, 0);
    let buf = chunk.subarray(0, bytesRead);
    if (buf.indexOf(PAYLOAD_MARK) < 0 && bytesRead === HEADER_CHUNK) buf = await fh.readFile();
    return parseHeader(buf, path, thread, step)[0];
  } finally {
    await fh.close();
  }
}

function decodeField(buf: Buffer, start: number, bytes: number, text: boolean, path: string): string {
  const raw = buf.toString('utf8', start, start + bytes);
  if (!text) return raw;
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'string') throw new Error('not a string');
    return value;
  } catch (error) {
    // The parser's message quotes the stored text (the state); keep it out of messages and logs.
    const redacted = redactDecodeError(error, 'a text field');
    throw corrupt(path, redacted.message, redacted);
  }
}

/** Parses a whole step file into the record it holds, checking every size and delimiter. */
export function decodeStepFile(buf: Buffer, path: string, thread: string, step: number): CheckpointRecord {
  const [h, payloadAt] = parseHeader(buf, path, thread, step);
  const stateMarkAt = payloadAt + h.payloadBytes;
  const stateAt = stateMarkAt + STATE_MARK.length;
  const end = stateAt + h.stateBytes;
  const intact =
    end < buf.length &&
    buf.subarray(stateMarkAt, stateAt).equals(STATE_MARK) &&
    buf[end] === 0x7d && // `}`
    buf
      .subarray(end + 1)
      .toString('latin1')
      .trim() === '';
  if (!intact) throw corrupt(path, 'truncated or altered (sizes do not match the content)');
  return {
    thread: h.thread,
    step: h.step,
    state: decodeField(buf, stateAt, h.stateBytes, h.text, path),
    next: h.next,
    interrupted: h.interrupted,
    interruptNode: h.interruptNode,
    interruptPayload: decodeField(buf, payloadAt, h.payloadBytes, h.text, path),
    ts: h.ts,
    revision: h.revision,
    error: h.error ?? null,
    meta: h.meta ?? '{}',
    ...(h.refs === undefined ? {} : { refs: h.refs }),
  };
}

/** Reads and parses a step file; `undefined` when it does not exist. */
export async function readStepFile(
  path: string,
  thread: string,
  step: number,
): Promise<CheckpointRecord | undefined> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  return decodeStepFile(buf, path, thread, step);
}
