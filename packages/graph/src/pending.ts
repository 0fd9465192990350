import type { Checkpoint } from '@flow/core';
import { interruptId } from './stable-id.js';
import type { PendingInterrupt } from './types.js';

/** The interrupts an interrupted checkpoint waits on, in frontier order. */
export function pendingInterrupts(cp: Checkpoint): PendingInterrupt[] {
  if (!cp.interrupted || cp.interruptNode === null) return [];
  const node = cp.interruptNode;
  return [{ id: interruptId(cp.thread, cp.step - 1, node, 0), node, payload: cp.interruptPayload }];
}

/** Where a run stands, in words, for the message of an answer that came to the wrong place. */
export function runStatus(cp: Checkpoint): string {
  if (cp.interrupted)
    return `the run is waiting on another question (at node ${JSON.stringify(cp.interruptNode)})`;
  if (cp.done) return 'the run is done';
  return 'the run is running: it is not waiting for an answer';
}
