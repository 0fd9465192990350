import { type Checkpoint, type Checkpointer, isFlowError } from '@flow/core';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { threadLabel } from '../format/label.js';
import { checkpointPages, threadPages } from '../paging.js';
import { ProgressLine } from './progress.js';
import { plural } from './prune.js';
import { checkpointContent, sameContent } from './same-checkpoint.js';
import { threadNotFound } from './show.js';

/** Options of `flow copy`. */
export interface CopyOptions {
  /** Copy only this thread. */
  thread?: string;
}

/** What a copy did. */
export interface CopyResult {
  threads: number;
  copied: number;
  /** Already in the target with identical content. */
  skipped: number;
  /** In the target with other content: left as they are. */
  conflicts: number;
  /** Threads a corrupt checkpoint stopped (in the source, or the target's copy of a step): copied in part or not at all. */
  unreadable: number;
}

async function* sourceThreads(source: Checkpointer, only: string | undefined): AsyncGenerator<string> {
  if (only !== undefined) {
    yield only;
    return;
  }
  for await (const page of threadPages(source, {})) for (const info of page) yield info.thread;
}

/**
 * Writes the first checkpoint of `page` into the target only if that (thread, step) is empty there
 * (`ifRevision: 0`), so nothing in the target is ever overwritten, together with the step's per-step writes
 * (completed nodes, task values, answers) in the same atomic put. `put` keeps the given `ts`, so history
 * keeps its times. The checkpoint is taken out of the page and let go before the target's copy is read, so
 * only one large state is held at a time. A step already in the target with the same content gets the
 * writes it lacks (the first value stored for a key wins, so a second run changes nothing).
 */
async function copyFirst(
  source: Checkpointer,
  target: Checkpointer,
  page: Checkpoint[],
): Promise<'copied' | 'skipped' | 'conflict'> {
  let cp: Checkpoint | undefined = page.shift()!;
  const writes = await source.getWrites(cp.thread, cp.step);
  try {
    await target.put(cp, { ifRevision: 0, writes });
    return 'copied';
  } catch (error) {
    if (!isFlowError(error, 'CHECKPOINT_CONFLICT')) throw error;
  }
  const wanted = checkpointContent(cp);
  cp = undefined;
  const existing = await target.get(wanted.thread, wanted.step);
  if (existing === undefined || !sameContent(checkpointContent(existing), wanted)) return 'conflict';
  if (writes.length > 0) await target.putWrites(wanted.thread, wanted.step, writes);
  return 'skipped';
}

/** The steps of one thread a copy went through before it stopped, newest first (`newest` -1: none). */
interface ThreadProgress {
  newest: number;
  oldest: number;
  copied: number;
  skipped: number;
  conflicts: number;
}

/**
 * What became of a thread a damaged step stopped, for its warning: how many of its steps were copied (or were
 * in the target already), which ones, and where it stopped. `at` is the step being copied when the error came
 * (its writes, or the target's copy of it, could not be read); undefined when reading the source's next page
 * of steps failed, which is the latest step when nothing came before.
 */
function stoppedBy(done: ThreadProgress, at: number | undefined): string {
  const where =
    at !== undefined ? `step ${at}` : done.newest < 0 ? 'its latest step' : `the steps before ${done.oldest}`;
  if (done.newest < 0) return `was not copied (no step of it): reading ${where} failed`;
  const range =
    done.newest === done.oldest ? `step ${done.newest}` : `steps ${done.newest} to ${done.oldest}`;
  const outcomes = [
    ...(done.copied > 0 ? [`${done.copied} copied`] : []),
    ...(done.skipped > 0 ? [`${done.skipped} already in the target`] : []),
    ...(done.conflicts > 0 ? [`${done.conflicts} differ in the target`] : []),
  ];
  return `copied only in part, ${range} (${outcomes.join(', ')}) and none older: reading ${where} failed`;
}

/**
 * `flow copy`: copies every step of every thread (or of `--thread`) from one store to another, with
 * states and timestamps. Steps the target already holds with identical content are skipped, so running
 * it again copies nothing twice; a step the target holds with other content is left as it is, named on
 * stderr, and makes the command exit 1 after the copy.
 */
export async function copyCommand(
  ctx: Context,
  source: Checkpointer,
  target: Checkpointer,
  opts: CopyOptions,
): Promise<CopyResult> {
  const result: CopyResult = { threads: 0, copied: 0, skipped: 0, conflicts: 0, unreadable: 0 };
  const progress = new ProgressLine(ctx.io.stderr);
  const show = () =>
    progress.update(
      `copying: ${plural(result.threads, 'thread')}, ${result.copied} copied, ${result.skipped} skipped`,
    );
  try {
    for await (const thread of sourceThreads(source, opts.thread)) {
      let seen = false;
      // What this thread's copy got through, newest step first, for the warning if a damaged step stops it.
      const done: ThreadProgress = { newest: -1, oldest: -1, copied: 0, skipped: 0, conflicts: 0 };
      let at: number | undefined;
      try {
        // Newest step first, page by page: a thread's history is never held in memory whole.
        for await (const page of checkpointPages(source, thread)) {
          seen = true;
          while (page.length > 0) {
            const step = page[0]!.step;
            at = step;
            const outcome = await copyFirst(source, target, page);
            at = undefined;
            if (done.newest < 0) done.newest = step;
            done.oldest = step;
            if (outcome === 'copied') {
              result.copied++;
              done.copied++;
            } else if (outcome === 'skipped') {
              result.skipped++;
              done.skipped++;
            } else {
              result.conflicts++;
              done.conflicts++;
              progress.clear();
              ctx.note(
                `warning: thread ${threadLabel(thread)} step ${step} differs in the target; left as it is`,
              );
            }
          }
          show();
        }
      } catch (error) {
        // A damaged step stops its own thread only: the other threads are still copied.
        if (!isFlowError(error, 'CORRUPT_CHECKPOINT')) throw error;
        seen = true;
        result.unreadable++;
        progress.clear();
        ctx.note(`warning: thread ${threadLabel(thread)} ${stoppedBy(done, at)}: ${error.message}`);
      }
      if (!seen && opts.thread !== undefined) throw threadNotFound(thread);
      result.threads++;
      show();
    }
  } finally {
    progress.clear();
  }
  ctx.print(
    `copied ${plural(result.copied, 'checkpoint')}, skipped ${result.skipped} already in the target ` +
      `(${plural(result.threads, 'thread')})`,
  );
  if (result.unreadable > 0) {
    throw new CliError(
      `${plural(result.unreadable, 'thread')} could not be read whole and ${result.unreadable === 1 ? 'was' : 'were'} ` +
        `copied in part or not at all${result.conflicts > 0 ? `; ${plural(result.conflicts, 'checkpoint')} differ in the target` : ''}`,
    );
  }
  if (result.conflicts > 0) {
    throw new CliError(
      `${plural(result.conflicts, 'checkpoint')} differ${result.conflicts === 1 ? 's' : ''} in the target and ` +
        `${result.conflicts === 1 ? 'was' : 'were'} not copied`,
    );
  }
  return result;
}
