import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ChunkRecord, redactDecodeError } from '@flow/core';
import { corrupt, parseFileHeader } from './file-header.js';
import { CHUNKS_DIR, chunkFileName, TEMP_PREFIX } from './layout.js';
import { hasCode, mkdirPrivate, removeFile, syncDir } from './private-fs.js';
import { commitFile, entriesOf, writeTemp } from './thread-dir.js';

/**
 * Chunk files: the parts of linear states that several steps share, one file per chunk,
 * `chunks/<hex of the id>.json`, each one JSON object holding the thread and the chunk id (checked on read),
 * then `data` last, its size in bytes given up front as in a step file. Hex keeps ids that differ only in
 * case apart on case-insensitive file systems, and no id can make `.` or `..`.
 */
interface ChunkHeader {
  format: 1;
  thread: string;
  id: string;
  /** `true`: `data` holds a JSON string wrapping the serializer's text; absent: the text itself. */
  text?: true;
  dataBytes: number;
}

const DATA_MARK = Buffer.from(',"data":');

export function encodeChunkFile(thread: string, chunk: ChunkRecord, rawJson: boolean): Buffer {
  const data = rawJson ? chunk.data : JSON.stringify(chunk.data);
  const header: ChunkHeader = {
    format: 1,
    thread,
    id: chunk.id,
    ...(rawJson ? {} : { text: true }),
    dataBytes: Buffer.byteLength(data),
  };
  return Buffer.from(`${JSON.stringify(header).slice(0, -1)},"data":${data}}\n`);
}

/** Parses a chunk file, checking that it holds `id` of `thread` and that its size matches. */
export function decodeChunkFile(buf: Buffer, path: string, thread: string, id: string): ChunkRecord {
  const [parsed, start] = parseFileHeader(buf, DATA_MARK, path, 'not a chunk file (no data field)');
  const h = parsed as ChunkHeader;
  const ok =
    typeof h === 'object' &&
    h !== null &&
    h.format === 1 &&
    (h.text === undefined || h.text === true) &&
    Number.isSafeInteger(h.dataBytes) &&
    h.dataBytes >= 0;
  if (!ok) throw corrupt(path, 'malformed chunk header');
  if (h.thread !== thread || h.id !== id) {
    throw corrupt(
      path,
      `holds chunk ${JSON.stringify(h.id)} of thread ${JSON.stringify(h.thread)}, not this one`,
    );
  }
  const end = start + h.dataBytes;
  const intact =
    end < buf.length &&
    buf[end] === 0x7d && // `}`
    buf
      .subarray(end + 1)
      .toString('latin1')
      .trim() === '';
  if (!intact) throw corrupt(path, 'truncated or altered (sizes do not match the content)');
  const raw = buf.toString('utf8', start, end);
  if (h.text === undefined) return { id, data: raw };
  try {
    const data: unknown = JSON.parse(raw);
    if (typeof data !== 'string') throw new Error('not a string');
    return { id, data };
  } catch (error) {
    // The parser's message quotes the stored text; keep it out of messages and logs.
    const redacted = redactDecodeError(error, 'a chunk');
    throw corrupt(path, redacted.message, redacted);
  }
}

/** The chunks directory of a thread directory. */
export function chunksDirOf(threadDir: string): string {
  return join(threadDir, CHUNKS_DIR);
}

/**
 * Reads the chunks `ids` of a thread; an id with no file is left out (the caller decides what that means).
 * Lock-free, like every read. Synchronously: chunk files are small and a state has tens of them, where each
 * asynchronous read costs several thread-pool round trips (measured: 8× the CPU of a synchronous one, which
 * made a get of a linear state several times a get of the whole state in one file).
 */
export function readChunkFiles(threadDir: string, thread: string, ids: readonly string[]): ChunkRecord[] {
  const dir = chunksDirOf(threadDir);
  const chunks: ChunkRecord[] = [];
  for (const id of new Set(ids)) {
    const path = join(dir, chunkFileName(id));
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (error) {
      if (hasCode(error, 'ENOENT')) continue;
      throw error;
    }
    chunks.push(decodeChunkFile(buf, path, thread, id));
  }
  return chunks;
}

/** The file names in a thread's chunks directory (none when it does not exist). */
export async function storedChunkNames(threadDir: string): Promise<Set<string>> {
  return new Set(await entriesOf(chunksDirOf(threadDir)));
}

/**
 * Writes chunks, each to a temp file, fsynced, then linked into place (an id already stored keeps its
 * data), all at once; then fsyncs the directory, so they are durable before a step file names them. Called
 * with the thread lock held, the thread directory existing. Resolves with the paths it created, for the
 * caller to remove should its put fail.
 */
export async function writeChunkFiles(
  threadDir: string,
  thread: string,
  fresh: readonly ChunkRecord[],
  rawJson: boolean,
): Promise<string[]> {
  if (fresh.length === 0) return [];
  const dir = chunksDirOf(threadDir);
  if (await mkdirPrivate(dir)) await syncDir(threadDir);
  const created: string[] = [];
  const results = await Promise.allSettled(
    fresh.map(async (chunk) => {
      const target = join(dir, chunkFileName(chunk.id));
      const temp = await writeTemp(dir, encodeChunkFile(thread, chunk, rawJson), true);
      if (await commitFile(temp, target, true)) created.push(target);
    }),
  );
  const failed = results.find((r) => r.status === 'rejected');
  if (failed !== undefined) {
    await removeChunkFiles(created);
    throw failed.reason;
  }
  await syncDir(dir);
  return created;
}

/** Removes chunk files (a failed put's), ignoring any already gone. */
export async function removeChunkFiles(paths: readonly string[]): Promise<void> {
  for (const path of paths) await removeFile(path).catch(() => {});
}

/**
 * Removes the chunk files no id of `referenced` names, and temp files a crashed writer left. Called with
 * the thread lock held, after the step files that referenced them are gone (a crash in between leaves
 * unreferenced chunks, never a step without its chunks). Resolves with how many chunk files it removed.
 */
export async function collectChunks(threadDir: string, referenced: ReadonlySet<string>): Promise<number> {
  const dir = chunksDirOf(threadDir);
  const keep = new Set([...referenced].map(chunkFileName));
  let removed = 0;
  for (const name of await entriesOf(dir)) {
    if (keep.has(name)) continue;
    await removeFile(join(dir, name));
    if (!name.startsWith(TEMP_PREFIX)) removed++;
  }
  if (removed > 0) await syncDir(dir);
  return removed;
}
