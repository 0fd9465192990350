import type { Checkpoint, Checkpointer, ThreadInfo, ThreadStatus } from '@flow/core';
import { approximateSize } from './approximate-size.js';
import { collectGarbage } from './release-memory.js';

/** How many threads or checkpoints one storage call fetches at most. */
export const PAGE_SIZE = 200;

/**
 * About how many bytes of state one page of checkpoints may hold. A page of large states is a single
 * checkpoint, so a command never holds more than one large state read from the store.
 */
export const PAGE_STATE_BYTES = 4 * 1024 * 1024;

/**
 * Yields pages of `listThreads`, following `after` from page to page, until `limit` threads (or all).
 * Pages, not single items, so a table can align each page without holding the whole store.
 */
export async function* threadPages(
  store: Checkpointer,
  opts: { status?: ThreadStatus; limit?: number },
): AsyncGenerator<ThreadInfo[]> {
  let remaining = opts.limit ?? Number.POSITIVE_INFINITY;
  let after: string | undefined;
  while (remaining > 0) {
    const limit = Math.min(PAGE_SIZE, remaining);
    const page = await store.listThreads({
      limit,
      ...(after === undefined ? {} : { after }),
      ...(opts.status === undefined ? {} : { status: opts.status }),
    });
    if (page.length > 0) yield page;
    if (page.length < limit) return;
    remaining -= page.length;
    after = page[page.length - 1]!.thread;
  }
}

/** A state this large is collected as soon as the command lets go of it (see `collectGarbage`). */
const LARGE_STATE_BYTES = 1024 * 1024;

/** The largest state (with its interrupt payload) of a page, roughly, in bytes. */
function largestState(page: readonly Checkpoint[]): number {
  let largest = 1;
  for (const cp of page) {
    largest = Math.max(largest, approximateSize([cp.state, cp.interruptPayload], PAGE_STATE_BYTES));
  }
  return largest;
}

/**
 * Yields pages of a thread's checkpoints, newest step first, following `beforeStep` from page to page.
 * The first page is one checkpoint; later pages hold about `PAGE_STATE_BYTES` of state, judged from the
 * page before (states of one thread change size gradually, and shrink going back in time), so large
 * states come one at a time and small ones up to `PAGE_SIZE` a call.
 */
export async function* checkpointPages(store: Checkpointer, thread: string): AsyncGenerator<Checkpoint[]> {
  let beforeStep: number | undefined;
  let limit = 1;
  for (;;) {
    const page = await store.list(thread, { limit, ...(beforeStep === undefined ? {} : { beforeStep }) });
    const last = page[page.length - 1];
    const more = page.length === limit && last !== undefined && last.step > 0;
    const largest = largestState(page);
    if (last !== undefined) beforeStep = last.step;
    if (page.length > 0) yield page;
    // The caller is done with the page: its large states go now, before the next ones arrive.
    if (largest >= LARGE_STATE_BYTES) collectGarbage();
    if (!more) return;
    // Grows by at most 4× a page, so a run of small states followed by large ones never fetches many large ones.
    limit = Math.max(1, Math.min(PAGE_SIZE, limit * 4, Math.floor(PAGE_STATE_BYTES / largest)));
  }
}
