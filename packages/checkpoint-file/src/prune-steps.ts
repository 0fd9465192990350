import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { NormalizedPruneBounds } from '@flow/core';
import { collectChunks } from './chunk-file.js';
import { CHUNKS_DIR, stageStepOf, stepFileName, stepsOf, stepWritesDir } from './layout.js';
import { mapLimit } from './map-limit.js';
import { removeFile, syncDir } from './private-fs.js';
import { readStepHeader, type StepHeader } from './step-file.js';
import { entriesOf, sweepTemps } from './thread-dir.js';

/**
 * Removes the steps of the thread directory `dir` that meet every bound, never the latest. Called with the
 * thread lock held, so it also clears temp files a crashed writer left. Reads only headers, and only for
 * `olderThan`. Resolves with how many steps it removed.
 */
export async function pruneSteps(
  dir: string,
  thread: string,
  bounds: NormalizedPruneBounds,
  concurrency: number,
): Promise<number> {
  const entries = await entriesOf(dir);
  await sweepTemps(dir, entries);
  // The first (highest) step is the latest, which prune never removes.
  let doomed = stepsOf(entries).slice(1);
  const { beforeStep, olderThan } = bounds;
  if (beforeStep !== undefined) doomed = doomed.filter((s) => s < beforeStep);
  if (olderThan !== undefined && doomed.length > 0) {
    const limit = Date.parse(olderThan);
    const headers = await mapLimit(doomed, concurrency, (s) =>
      readStepHeader(join(dir, stepFileName(s)), thread, s),
    );
    doomed = doomed.filter((_, i) => {
      const h = headers[i];
      return h !== undefined && Date.parse(h.ts) < limit;
    });
  }
  for (const s of doomed) await removeFile(join(dir, stepFileName(s)));
  if (doomed.length > 0) await syncDir(dir);
  // Their writes go after the step files: a crash in between leaves writes of a removed step (which the
  // next prune does not see), never a kept checkpoint without its writes.
  const gone = new Set(doomed);
  for (const s of doomed) await rm(stepWritesDir(dir, s), { recursive: true, force: true });
  for (const name of entries) {
    const s = stageStepOf(name);
    if (s !== undefined && gone.has(s)) await rm(join(dir, name), { recursive: true, force: true });
  }
  // Also when no step went: an overwritten step (a rekey) leaves the chunks of its old state behind.
  if (entries.includes(CHUNKS_DIR)) {
    await collectUnreferenced(
      dir,
      thread,
      stepsOf(entries).filter((s) => !gone.has(s)),
      concurrency,
    );
  }
  return doomed.length;
}

/**
 * Removes the chunks no remaining step references, after the pruned step files are gone. A remaining step
 * whose header cannot be read leaves every chunk in place: garbage is allowed, a dangling ref is not.
 */
async function collectUnreferenced(
  dir: string,
  thread: string,
  remaining: readonly number[],
  concurrency: number,
): Promise<void> {
  let headers: (StepHeader | undefined)[];
  try {
    headers = await mapLimit(remaining, concurrency, (s) =>
      readStepHeader(join(dir, stepFileName(s)), thread, s),
    );
  } catch {
    return;
  }
  await collectChunks(dir, new Set(headers.flatMap((h) => h?.refs ?? [])));
}
