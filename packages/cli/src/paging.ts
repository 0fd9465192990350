import type { Checkpoint, Checkpointer, ThreadInfo, ThreadStatus } from '@flow/core';

/** How many threads or checkpoints one storage call fetches. */
export const PAGE_SIZE = 200;

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

/** Yields pages of a thread's checkpoints, newest step first, following `beforeStep` from page to page. */
export async function* checkpointPages(store: Checkpointer, thread: string): AsyncGenerator<Checkpoint[]> {
  let beforeStep: number | undefined;
  for (;;) {
    const page = await store.list(thread, {
      limit: PAGE_SIZE,
      ...(beforeStep === undefined ? {} : { beforeStep }),
    });
    if (page.length > 0) yield page;
    const last = page[page.length - 1];
    if (page.length < PAGE_SIZE || last === undefined || last.step === 0) return;
    beforeStep = last.step;
  }
}
