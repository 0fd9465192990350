import type { Checkpointer, Checkpoint as FlowCheckpoint } from '@flow/core';
import { factsOf } from './record.js';

/**
 * Finds the record of checkpoint `id` in a @flow thread whose latest record is `latest` (docs/langgraph.md#finding-a-checkpoint).
 * While every id of the thread is greater than the one before (`sorted`, the common case: uuid6 ids are
 * time-ordered), a binary search over steps, about log2(steps) reads; otherwise a scan from the newest.
 * The saver remembers the steps of checkpoints it wrote or read, so a running graph never searches.
 */
export async function findStep(
  checkpointer: Checkpointer,
  thread: string,
  latest: FlowCheckpoint,
  id: string,
): Promise<FlowCheckpoint | undefined> {
  if (factsOf(latest)?.sorted === true) {
    let lo = 0;
    let hi = latest.step - 1;
    while (lo <= hi) {
      const mid = Math.floor((lo + hi) / 2);
      // The record at the greatest step ≤ mid: steps may have gaps (pruned, or a claim that failed).
      const [cp] = await checkpointer.list(thread, { beforeStep: mid + 1, limit: 1 });
      const found = cp && factsOf(cp)?.checkpoint_id;
      if (cp === undefined || found === undefined || cp.step < lo) {
        lo = mid + 1;
      } else if (found === id) {
        return cp;
      } else if (found < id) {
        lo = mid + 1;
      } else {
        hi = cp.step - 1;
      }
    }
    return undefined;
  }
  let beforeStep: number | undefined = latest.step;
  for (;;) {
    const page = await checkpointer.list(thread, { beforeStep, limit: 64 });
    const hit = page.find((cp) => factsOf(cp)?.checkpoint_id === id);
    if (hit !== undefined) return hit;
    if (page.length < 64) return undefined;
    beforeStep = (page[page.length - 1] as FlowCheckpoint).step;
  }
}
