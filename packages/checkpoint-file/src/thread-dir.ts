import { link, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { ThreadInfo } from '@flow/core';
import { SUMMARY_FILE, stepFileName, stepsOf, TEMP_PREFIX, uniqueName } from './layout.js';
import { hasCode, removeFile, writeNewFile } from './private-fs.js';
import { readStepHeader } from './step-file.js';
import { encodeSummary, summaryOf } from './summary-file.js';

/** A thread directory's entries; none when it does not exist. */
export async function entriesOf(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (hasCode(error, 'ENOENT')) return [];
    throw error;
  }
}

/** The steps stored in a thread directory, highest first. */
export async function listSteps(dir: string): Promise<number[]> {
  return stepsOf(await entriesOf(dir));
}

/**
 * Removes temp files left in a thread directory by a crashed writer. Only called with the thread lock
 * held: every writer holds it, so a temp file seen then belongs to nobody.
 */
export async function sweepTemps(dir: string, entries: readonly string[]): Promise<void> {
  for (const name of entries) if (name.startsWith(TEMP_PREFIX)) await removeFile(join(dir, name));
}

/**
 * The thread's summary as its step files say it, reading only the latest step's header. `undefined`
 * when no step is stored. `thread` undefined: take the id the file holds.
 */
export async function summaryFromSteps(
  dir: string,
  thread: string | undefined,
  steps: readonly number[],
): Promise<ThreadInfo | undefined> {
  for (const step of steps) {
    const header = await readStepHeader(join(dir, stepFileName(step)), thread, step);
    if (header !== undefined) return summaryOf(header);
  }
  return undefined;
}

/** Writes a new file's bytes to a temp file in `dir`; resolves with the temp path. */
export async function writeTemp(dir: string, bytes: Uint8Array, durable: boolean): Promise<string> {
  const temp = join(dir, uniqueName(TEMP_PREFIX));
  await writeNewFile(temp, bytes, durable);
  return temp;
}

/**
 * Moves a finished temp file into place. With `create`, through `link`, which fails when the target
 * exists, so a create-only put stays exactly-once even if a lock was wrongly broken; file systems
 * without hard links fall back to `rename` (the lock still guards it). Resolves `false` when the target
 * already existed (nothing changed, the temp file is gone).
 */
export async function commitFile(temp: string, target: string, create: boolean): Promise<boolean> {
  if (create) {
    try {
      await link(temp, target);
      await removeFile(temp);
      return true;
    } catch (error) {
      if (hasCode(error, 'EEXIST')) {
        await removeFile(temp);
        return false;
      }
      if (!hasCode(error, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK')) throw error;
    }
  }
  await rename(temp, target);
  return true;
}

/**
 * Rewrites a thread's summary from its step files (after a crash left it behind), or removes it when
 * no step is left. Called with the thread lock held.
 */
export async function repairSummary(dir: string, thread: string, entries: readonly string[]): Promise<void> {
  const summaryPath = join(dir, SUMMARY_FILE);
  let info: ThreadInfo | undefined;
  try {
    info = await summaryFromSteps(dir, thread, stepsOf(entries));
  } catch {
    // A corrupt latest step: leave no summary, so listThreads reports that file instead of a wrong step.
    info = undefined;
  }
  if (info === undefined) {
    await removeFile(summaryPath);
    return;
  }
  const temp = await writeTemp(dir, encodeSummary(info), false);
  await rename(temp, summaryPath);
}
