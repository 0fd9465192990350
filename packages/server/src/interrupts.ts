import type { Checkpoint } from '@flow/core';
import * as engine from '@flow/graph';

/** An interrupt a checkpoint waits on, as the engine names it. */
export interface PendingInterruptJson {
  id: string | null;
  node: string;
  payload: unknown;
}

type PendingOf = (cp: Checkpoint) => PendingInterruptJson[];

// The engine holds the rule that names interrupts; an engine without interrupt ids has no such function.
// Used only in the one-argument form (an export that needs more, such as the store's writes, is not it).
const exported = (engine as unknown as { pendingInterrupts?: PendingOf }).pendingInterrupts;
const pendingOf = typeof exported === 'function' && exported.length === 1 ? exported : undefined;

/**
 * The interrupts an interrupted checkpoint waits on (the ids a client sends back with its answer), or
 * undefined when the checkpoint is not interrupted or the engine installed does not name interrupts.
 */
export function interruptsOf(cp: Checkpoint): PendingInterruptJson[] | undefined {
  if (!cp.interrupted || pendingOf === undefined) return undefined;
  return pendingOf(cp);
}
