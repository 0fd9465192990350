import type { Checkpoint, PendingWrite } from '@flow/core';
import { PENDING } from './ledger.js';
import { interruptId } from './stable-id.js';
import type { PendingInterrupt } from './types.js';

const q = JSON.stringify;

/** An interrupt waiting at a super-step: the node, its call's position, its payload, its id. */
export interface WaitingCall extends PendingInterrupt {
  readonly position: number;
}

/**
 * The step a checkpoint's super-step began at: continuation checkpoints (an interrupt, a failure, a claim)
 * record it in `meta.superStep`; any other checkpoint begins its own. Records from before the field: an
 * interrupt was written right after the step its nodes read.
 */
export function superStepOf(cp: Checkpoint): number {
  const recorded = cp.meta.superStep;
  if (typeof recorded === 'number' && Number.isInteger(recorded)) return recorded;
  return cp.interrupted ? cp.step - 1 : cp.step;
}

/**
 * The interrupts an interrupted checkpoint waits on, in frontier order, from its pending-interrupt writes;
 * without them, the one it stopped for (`interruptNode`, `interruptPayload`, its call's position in `meta`).
 */
export function waitingCalls(cp: Checkpoint, writes: readonly PendingWrite[] = []): WaitingCall[] {
  if (!cp.interrupted || cp.interruptNode === null) return [];
  const superStep = superStepOf(cp);
  const make = (node: string, position: number, payload: unknown): WaitingCall => ({
    id: interruptId(cp.thread, superStep, node, position),
    node,
    payload,
    position,
  });
  const found: WaitingCall[] = [];
  for (const w of writes) {
    if (w.key !== PENDING) continue;
    const { position, payload } = w.value as { position: number; payload: unknown };
    found.push(make(w.node, position, payload));
  }
  if (found.length === 0) {
    const position = typeof cp.meta.position === 'number' ? cp.meta.position : 0;
    return [make(cp.interruptNode, position, cp.interruptPayload)];
  }
  const order = (node: string) => {
    const i = cp.next.indexOf(node);
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return found.sort((a, b) => order(a.node) - order(b.node));
}

/** Where a run stands, in words, for the message of an answer that came to the wrong place. */
export function runStatus(cp: Checkpoint): string {
  if (cp.interrupted) return `the run is waiting on another question (at node ${q(cp.interruptNode)})`;
  if (cp.done) return 'the run is done';
  if (cp.error !== null) {
    const at = cp.error.node === null ? '' : ` at node ${q(cp.error.node)}`;
    return `the run failed${at} (${cp.error.message}): resume it without an answer to retry`;
  }
  return 'the run is running: it is not waiting for an answer';
}

/**
 * The interrupts an interrupted checkpoint waits on, with the ids `resume(thread, { answer, interrupt })`
 * takes: given the writes of its step (`checkpointer.getWrites(cp.thread, cp.step)`), every pending one in
 * frontier order; given the checkpoint alone, the one it stopped for. `[]` when it is not interrupted.
 * `app.interrupts(thread)` reads both for you. (An `interruptBefore` stop has no question; it lists its node
 * with an id nobody can answer, so check `cp.meta.interruptBefore`, or use `app.interrupts`.)
 */
export function pendingInterrupts(cp: Checkpoint, writes?: readonly PendingWrite[]): PendingInterrupt[] {
  if (cp.meta.interruptBefore === true) return [];
  return waitingCalls(cp, writes).map(({ id, node, payload }) => ({ id, node, payload }));
}
