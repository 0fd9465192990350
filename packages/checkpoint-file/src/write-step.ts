import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  CheckpointConflict,
  type CheckpointRecord,
  type ChunkRecord,
  MissingChunkError,
  type ThreadInfo,
  type WriteRecord,
} from '@flow/core';
import { removeChunkFiles, storedChunkNames, writeChunkFiles } from './chunk-file.js';
import { chunkFileName, SUMMARY_FILE, stageName, stepFileName } from './layout.js';
import { mkdirPrivate, removeFile, syncDir } from './private-fs.js';
import { encodeStepFile, readStepHeader } from './step-file.js';
import { encodeSummary, readSummary, summaryOf } from './summary-file.js';
import { commitFile, listSteps, summaryFromSteps, writeTemp } from './thread-dir.js';
import { createWriteFiles, publishStage } from './write-files.js';

/**
 * Stores one step in the thread directory `dir` (created `0o700` if missing). Called with the thread lock
 * held. Reads only the step's header (for its revision) and the small summary, never the rest of the thread;
 * writes the final bytes once to a temp file, fsyncs it, moves it into place and fsyncs the directory.
 * Resolves with the new revision; throws `CheckpointConflict` when `ifRevision` does not match.
 */
export async function writeStep(
  dir: string,
  record: CheckpointRecord,
  ifRevision: number | undefined,
  rawJson: boolean,
  writes: readonly WriteRecord[] = [],
): Promise<number> {
  const { thread, step } = record;
  const file = join(dir, stepFileName(step));
  const summaryPath = join(dir, SUMMARY_FILE);
  const header = await readStepHeader(file, thread, step);
  const current = header?.revision ?? 0;
  if (ifRevision !== undefined && ifRevision !== current) {
    throw new CheckpointConflict({ thread, step, expected: ifRevision, actual: current, backend: 'file' });
  }
  // The new step file will not name the old one's staging directory: publish what it still holds.
  if (header?.staged !== undefined) await publishStage(dir, step, header.staged);
  const revision = current + 1;
  // A new thread directory is an entry of threads/, which must be durable too.
  if (await mkdirPrivate(dir)) await syncDir(dirname(dir));
  const summary = await nextSummary(dir, record, summaryPath);
  const chunks = await chunksToStore(dir, record);
  // The writes go to a staging directory the step file names: readers see them once (and only if) the
  // step file is in place; they are published into writes/ after it.
  const stage = writes.length > 0 ? await stageWrites(dir, step, writes) : undefined;
  let chunkFiles: string[] = [];
  let stepTemp: string | undefined;
  let summaryTemp: string | undefined;
  try {
    // Every file is fully written (the chunks durable, their directory too) before the step file, which
    // names them, is moved into place; written at once, their fsyncs overlap.
    const written = await Promise.allSettled([
      writeChunkFiles(dir, thread, chunks, rawJson),
      writeTemp(dir, encodeStepFile(record, revision, rawJson, stage), true),
      summary === undefined ? undefined : writeTemp(dir, encodeSummary(summary), false),
    ]);
    const [chunksWritten, stepWritten, summaryWritten] = written;
    if (chunksWritten.status === 'fulfilled') chunkFiles = chunksWritten.value;
    if (stepWritten.status === 'fulfilled') stepTemp = stepWritten.value;
    if (summaryWritten.status === 'fulfilled') summaryTemp = summaryWritten.value;
    const failed = written.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    if (!(await commitFile(stepTemp!, file, ifRevision === 0))) {
      const actual = (await readStepHeader(file, thread, step))?.revision ?? 0;
      throw new CheckpointConflict({ thread, step, expected: 0, actual, backend: 'file' });
    }
  } catch (error) {
    if (stepTemp !== undefined) await removeFile(stepTemp).catch(() => {});
    await removeChunkFiles(chunkFiles);
    if (stage !== undefined) await rm(join(dir, stage), { recursive: true, force: true }).catch(() => {});
    if (summaryTemp !== undefined) await removeFile(summaryTemp).catch(() => {});
    throw error;
  }
  if (summaryTemp !== undefined) {
    const temp = summaryTemp;
    // The step is committed; the summary is a cache. If it cannot be replaced, remove it so readers fall
    // back to the step files rather than trust an old one.
    await rename(temp, summaryPath).catch(async () => {
      await removeFile(summaryPath).catch(() => {});
      await removeFile(temp).catch(() => {});
    });
  }
  await syncDir(dir);
  // Committed: should publishing fail, the next locked call on the step (or recovery) finishes it.
  if (stage !== undefined) await publishStage(dir, step, stage).catch(() => {});
  return revision;
}

/**
 * The chunks of a linear record not stored yet, after checking that every other id of `refs` is stored
 * (`MissingChunkError` otherwise, before anything is written).
 */
async function chunksToStore(dir: string, record: CheckpointRecord): Promise<ChunkRecord[]> {
  if (record.refs === undefined || record.refs.length === 0) return [];
  const stored = await storedChunkNames(dir);
  const brought = new Set((record.chunks ?? []).map((c) => c.id));
  const missing = [...new Set(record.refs)].find((id) => !brought.has(id) && !stored.has(chunkFileName(id)));
  if (missing !== undefined)
    throw new MissingChunkError({ thread: record.thread, id: missing, backend: 'file' });
  return (record.chunks ?? []).filter((c) => !stored.has(chunkFileName(c.id)));
}

/** Writes a put's writes, each fsynced, into a new `0o700` staging directory; resolves with its name. */
async function stageWrites(dir: string, step: number, writes: readonly WriteRecord[]): Promise<string> {
  const stage = stageName(step);
  await mkdirPrivate(join(dir, stage));
  try {
    await createWriteFiles(join(dir, stage), writes);
  } catch (error) {
    await rm(join(dir, stage), { recursive: true, force: true }).catch(() => {});
    throw error;
  }
  return stage;
}

/** The summary once `record` lands, or `undefined` when the current one stays right. */
async function nextSummary(
  dir: string,
  record: CheckpointRecord,
  path: string,
): Promise<ThreadInfo | undefined> {
  const mine = summaryOf({ ...record, next: [...record.next] });
  const prior = await readSummary(path);
  if (prior !== undefined && prior.thread === record.thread) {
    return record.step >= prior.latestStep ? mine : undefined;
  }
  // No usable summary (a new thread, or a crash): the latest of the stored steps and this one.
  const higher = (await listSteps(dir)).filter((s) => s > record.step);
  if (higher.length === 0) return mine;
  try {
    return await summaryFromSteps(dir, record.thread, higher);
  } catch {
    return undefined; // a corrupt latest step: listThreads will name it
  }
}
