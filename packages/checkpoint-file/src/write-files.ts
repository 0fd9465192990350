import { createHash } from 'node:crypto';
import { access, link, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CorruptCheckpointError, compareWrites, redactDecodeError, type WriteRecord } from '@flow/core';
import { stageStepOf, stepFileName, stepWritesDir, TEMP_PREFIX, WRITES_DIR } from './layout.js';
import { hasCode, mkdirPrivate, syncDir } from './private-fs.js';
import { readStepHeader } from './step-file.js';
import { commitFile, entriesOf, sweepTemps, writeTemp } from './thread-dir.js';

/**
 * Writes on disk: one file per (step, node, key), `writes/<step>/<sha256 of node, U+0000, key>.json`. The
 * hash is the only path component taken from node and key (no id can contain U+0000, so no two pairs
 * share the text hashed), and each file holds the real node and key, checked on read. A file is written
 * whole to a temp file first and moved in with `link`, which fails when the name exists: the first value
 * stored wins, across processes too, and a writer killed mid-write leaves only a temp file, never a torn
 * value under the real name (readers skip temp files; the next writer sweeps them).
 */
export function writeFileName(node: string, key: string): string {
  return `${createHash('sha256').update(`${node}\u0000${key}`, 'utf8').digest('hex')}.json`;
}

function encodeWrite(w: WriteRecord): Buffer {
  return Buffer.from(`${JSON.stringify({ format: 1, node: w.node, key: w.key, value: w.value })}\n`);
}

function decodeWrite(text: string, path: string, name: string): WriteRecord {
  let w: { format?: unknown; node?: unknown; key?: unknown; value?: unknown };
  try {
    w = JSON.parse(text);
  } catch (error) {
    // The parser's message quotes the stored value; keep it out of messages and logs.
    const redacted = redactDecodeError(error, 'a write file');
    throw new CorruptCheckpointError(path, redacted.message, { backend: 'file', cause: redacted });
  }
  const ok =
    typeof w === 'object' &&
    w !== null &&
    w.format === 1 &&
    typeof w.node === 'string' &&
    typeof w.key === 'string' &&
    typeof w.value === 'string' &&
    writeFileName(w.node, w.key) === name;
  if (!ok) throw new CorruptCheckpointError(path, 'malformed write file', { backend: 'file' });
  return { node: w.node as string, key: w.key as string, value: w.value as string };
}

/**
 * Creates one file per write in `dir` (which exists), skipping a (node, key) already there: the first
 * wins. Each file is fsynced before it gets its name; the directory too, once. Called with the thread
 * lock held, so temp files found in `dir` belong to a crashed writer and go. Resolves with how many files
 * it created.
 */
export async function createWriteFiles(dir: string, writes: readonly WriteRecord[]): Promise<number> {
  await sweepTemps(dir, await entriesOf(dir));
  let created = 0;
  for (const w of writes) {
    const target = join(dir, writeFileName(w.node, w.key));
    // Checked first because file systems without hard links commit by rename, which would replace it.
    if (await exists(target)) continue;
    if (await commitFile(await writeTemp(dir, encodeWrite(w), true), target, true)) created++;
  }
  if (created > 0) await syncDir(dir);
  return created;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return false;
    throw error;
  }
}

/** Creates `writes/<step>/` in a thread directory (which exists), each level `0o700` and durable. */
export async function ensureStepWritesDir(threadDir: string, step: number): Promise<string> {
  const dir = stepWritesDir(threadDir, step);
  if (await mkdirPrivate(join(threadDir, WRITES_DIR))) await syncDir(threadDir);
  if (await mkdirPrivate(dir)) await syncDir(dirname(dir));
  return dir;
}

/**
 * Moves a put's staged writes into `writes/<step>/` and removes the staging directory. Each file is
 * linked (a (node, key) stored there already keeps its value), and the staging directory goes only after
 * every link is durable, so a reader that looks at the staging directory first and then `writes/` never
 * misses one. Called with the thread lock held; a missing staging directory is already published.
 */
export async function publishStage(threadDir: string, step: number, stage: string): Promise<void> {
  const from = join(threadDir, stage);
  const names = await entriesOf(from);
  if (names.length > 0) {
    const to = await ensureStepWritesDir(threadDir, step);
    for (const name of names) {
      if (name.startsWith(TEMP_PREFIX)) continue; // a crashed staging writer's, never a staged value
      try {
        await link(join(from, name), join(to, name));
      } catch (error) {
        if (!hasCode(error, 'EEXIST')) throw error;
      }
    }
    await syncDir(to);
  }
  await rm(from, { recursive: true, force: true });
}

/**
 * Publishes the staged writes the step file names, when a put published none yet (it failed or crashed
 * after committing the step file). Called with the thread lock held before anything rewrites the step or
 * adds writes to it, so the staged values, stored first, stay first.
 */
export async function publishPending(threadDir: string, thread: string, step: number): Promise<void> {
  const header = await readStepHeader(join(threadDir, stepFileName(step)), thread, step);
  if (header?.staged !== undefined) await publishStage(threadDir, step, header.staged);
}

/**
 * After a crashed holder: publishes each staging directory whose step file names it (the put committed)
 * and removes the others (the put never committed, so its writes were never visible). Lock held.
 */
export async function settleStages(
  threadDir: string,
  thread: string,
  entries: readonly string[],
): Promise<void> {
  for (const name of entries) {
    const step = stageStepOf(name);
    if (step === undefined) continue;
    let staged: string | undefined;
    try {
      staged = (await readStepHeader(join(threadDir, stepFileName(step)), thread, step))?.staged;
    } catch {
      continue; // a corrupt step file: leave its writes for whoever repairs it
    }
    if (staged === name) await publishStage(threadDir, step, name);
    else await rm(join(threadDir, name), { recursive: true, force: true });
  }
}

async function readDirWrites(dir: string, into: Map<string, WriteRecord>): Promise<void> {
  for (const name of await entriesOf(dir)) {
    if (!name.endsWith('.json')) continue; // a temp file
    const path = join(dir, name);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (hasCode(error, 'ENOENT')) continue; // published or pruned meanwhile
      throw error;
    }
    into.set(name, decodeWrite(text, path, name));
  }
}

/**
 * The writes of (thread, step): those in `writes/<step>/`, and those staged by the put of the step file
 * that names its staging directory (a put that committed but has not published them yet). Staged writes
 * of a put that did not commit its step file are never read. Code-point order of (node, key).
 */
export async function readWriteFiles(
  threadDir: string,
  thread: string,
  step: number,
): Promise<WriteRecord[]> {
  const found = new Map<string, WriteRecord>();
  const header = await readStepHeader(join(threadDir, stepFileName(step)), thread, step);
  // The staging directory first: publishing links into writes/ before removing it.
  if (header?.staged !== undefined) await readDirWrites(join(threadDir, header.staged), found);
  await readDirWrites(stepWritesDir(threadDir, step), found);
  return [...found.values()].sort(compareWrites);
}
