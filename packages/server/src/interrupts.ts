import type { Checkpoint, Checkpointer, PendingWrite } from '@flow/core';
import * as engine from '@flow/graph';

/** An interrupt a checkpoint waits on, as the engine names it. */
export interface PendingInterruptJson {
  id: string | null;
  node: string;
  payload: unknown;
}

type PendingOf = (cp: Checkpoint, writes?: readonly PendingWrite[]) => PendingInterruptJson[];

// The engine holds the rule that names interrupts; an engine without interrupt ids has no such function.
const exported = (engine as unknown as { pendingInterrupts?: PendingOf }).pendingInterrupts;
const pendingOf = typeof exported === 'function' ? exported : undefined;

/**
 * The interrupts an interrupted checkpoint waits on (the ids a client sends back with its answer), read with
 * the writes of its step so a run waiting on several questions lists each; undefined when the checkpoint is
 * not interrupted or the engine installed does not name interrupts.
 */
export async function interruptsOf(
  cp: Checkpoint,
  store: Checkpointer,
): Promise<PendingInterruptJson[] | undefined> {
  if (!cp.interrupted || pendingOf === undefined) return undefined;
  return pendingOf(cp, await store.getWrites(cp.thread, cp.step));
}
