import { randomUUID } from 'node:crypto';
import type { Checkpointer } from './checkpointer.js';
import type { Lease } from './lease.js';

/** How long a delete holds the thread's lease: released as soon as the thread is gone. */
const DELETE_LEASE_MS = 60_000;

/** What `deleteIdleThread` did: the checkpoints it removed, or the live lease that stopped it. */
export type IdleDeleteResult =
  | { deleted: true; removed: number }
  | { deleted: false; holder: Lease | undefined };

/**
 * Deletes a thread unless a run holds it. A run in flight (a worker's, a server's, another process's `resume`)
 * holds the thread's lease and would write its next step into the deleted thread, which would come back
 * without its history; so the delete takes that lease first, removes the thread while holding it (no run can
 * start meanwhile), then releases it. When another owner holds a live lease nothing is removed, and the
 * result names that lease (`undefined` if it ended before it could be read). `flow delete` and the server's
 * `DELETE` both go through here.
 */
export async function deleteIdleThread(store: Checkpointer, thread: string): Promise<IdleDeleteResult> {
  const owner = `flow-delete/${randomUUID()}`;
  if ((await store.acquireLease(thread, { owner, ttlMs: DELETE_LEASE_MS })) === undefined) {
    return { deleted: false, holder: await store.getLease(thread) };
  }
  try {
    return { deleted: true, removed: await store.deleteThread(thread) };
  } finally {
    await store.releaseLease(thread, owner).catch(() => {}); // it expires anyway
  }
}
