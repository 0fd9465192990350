import { join } from 'node:path';
import {
  compareThreadIds,
  type ListThreadsOptions,
  statusOf,
  type ThreadInfo,
  type ThreadStatus,
} from '@flow/core';
import { SUMMARY_FILE } from './layout.js';
import { mapLimit } from './map-limit.js';
import { readSummary } from './summary-file.js';
import { entriesOf, listSteps, summaryFromSteps } from './thread-dir.js';
import { isThreadName, threadName } from './thread-name.js';

/**
 * `listThreads` over the `threads/` directory: one small summary file per thread, never a state. Threads
 * are sorted in code-point order of id in memory, since directory names (hashes) carry no order.
 */
export async function readThreads(
  threadsDir: string,
  locksDir: string,
  opts: ListThreadsOptions,
  concurrency: number,
): Promise<ThreadInfo[]> {
  const names = (await entriesOf(threadsDir)).filter(isThreadName);
  // A thread with a lock file is being written, or its writer died between the step's rename and the
  // summary's (the lock stays until the next writer breaks it): its summary may lag, so its steps answer.
  const locked = new Set(await entriesOf(locksDir));
  const infos = await mapLimit(names, concurrency, (name) =>
    threadInfo(join(threadsDir, name), name, locked.has(`${name}.lock`)),
  );
  const { after, status, limit } = opts;
  let out = infos.filter((i) => i !== undefined).sort((a, b) => compareThreadIds(a.thread, b.thread));
  if (after !== undefined) out = out.filter((i) => compareThreadIds(i.thread, after) > 0);
  if (status !== undefined) out = out.filter((i) => statusOfInfo(i) === status);
  return limit === undefined ? out : out.slice(0, limit);
}

/**
 * One thread's summary; from the latest step's header when the summary file is missing or unreadable, or
 * may lag (`locked`). `undefined` for a directory with no step (a crash before the first one landed, or a
 * delete under way).
 */
async function threadInfo(dir: string, name: string, locked: boolean): Promise<ThreadInfo | undefined> {
  if (locked) {
    try {
      const info = await summaryFromSteps(dir, undefined, await listSteps(dir));
      if (info !== undefined && threadName(info.thread) === name) return info;
    } catch {
      // An unreadable latest step: the summary answers, as it does for a thread without a lock.
    }
  }
  const summary = await readSummary(join(dir, SUMMARY_FILE));
  if (summary !== undefined && threadName(summary.thread) === name) return summary;
  const info = await summaryFromSteps(dir, undefined, await listSteps(dir));
  return info !== undefined && threadName(info.thread) === name ? info : undefined;
}

const UNFINISHED: readonly string[] = [''];

/** Core's status rule over a summary (which keeps `done`, not the frontier). */
function statusOfInfo(info: ThreadInfo): ThreadStatus {
  return statusOf({ next: info.done ? [] : UNFINISHED, interrupted: info.interrupted, error: info.error });
}
