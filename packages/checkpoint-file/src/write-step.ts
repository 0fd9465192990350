import { rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CheckpointConflict, type CheckpointRecord, type ThreadInfo } from '@flow/core';
import { SUMMARY_FILE, stepFileName } from './layout.js';
import { mkdirPrivate, removeFile, syncDir } from './private-fs.js';
import { encodeStepFile, readStepHeader } from './step-file.js';
import { encodeSummary, readSummary, summaryOf } from './summary-file.js';
import { commitFile, listSteps, summaryFromSteps, writeTemp } from './thread-dir.js';

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
): Promise<number> {
  const { thread, step } = record;
  const file = join(dir, stepFileName(step));
  const summaryPath = join(dir, SUMMARY_FILE);
  const current = (await readStepHeader(file, thread, step))?.revision ?? 0;
  if (ifRevision !== undefined && ifRevision !== current) {
    throw new CheckpointConflict({ thread, step, expected: ifRevision, actual: current, backend: 'file' });
  }
  const revision = current + 1;
  // A new thread directory is an entry of threads/, which must be durable too.
  if (await mkdirPrivate(dir)) await syncDir(dirname(dir));
  const summary = await nextSummary(dir, record, summaryPath);
  // Both files are fully written before either is moved into place.
  const stepTemp = await writeTemp(dir, encodeStepFile(record, revision, rawJson), true);
  let summaryTemp: string | undefined;
  try {
    if (summary !== undefined) summaryTemp = await writeTemp(dir, encodeSummary(summary), false);
    if (!(await commitFile(stepTemp, file, ifRevision === 0))) {
      const actual = (await readStepHeader(file, thread, step))?.revision ?? 0;
      throw new CheckpointConflict({ thread, step, expected: 0, actual, backend: 'file' });
    }
  } catch (error) {
    await removeFile(stepTemp).catch(() => {});
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
  return revision;
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
