import type { Checkpoint, PendingWrite } from '@flow/core';
import * as engine from '@flow/graph';
import type { GraphEntry } from './graphs.js';

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
 * the writes of its step so a run waiting on several questions lists each: as the graph names them when it
 * does, else by the engine's rule; undefined when the checkpoint is not interrupted or no rule names them.
 */
export async function interruptsOf(
  cp: Checkpoint,
  graph: GraphEntry,
): Promise<PendingInterruptJson[] | undefined> {
  if (!cp.interrupted) return undefined;
  if (typeof graph.app.interruptsOf === 'function') return graph.app.interruptsOf(cp);
  if (pendingOf === undefined) return undefined;
  return pendingOf(cp, await graph.store.getWrites(cp.thread, cp.step));
}
