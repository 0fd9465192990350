import type { Checkpoint, Checkpointer, PendingWrite } from '@flow/core';

type PendingOf = (cp: Checkpoint, writes?: readonly PendingWrite[]) => { id: string | null; node: string }[];

/**
 * The id of the interrupt an interrupted checkpoint waits on first (the question its `interruptPayload`
 * shows), as the engine names it, read with the writes of its step; undefined when the engine installed has
 * no interrupt ids (or nothing waits). The engine is the one place the rule lives.
 */
export async function interruptIdOf(
  cp: Checkpoint,
  store: Checkpointer | undefined,
): Promise<string | undefined> {
  if (!cp.interrupted || store === undefined) return undefined;
  let graph: { pendingInterrupts?: PendingOf };
  try {
    graph = (await import('@flow/graph')) as typeof graph;
  } catch {
    return undefined;
  }
  const pending = graph.pendingInterrupts;
  if (typeof pending !== 'function') return undefined;
  const waiting = pending(cp, await store.getWrites(cp.thread, cp.step));
  const id = (waiting.find((p) => p.node === cp.interruptNode) ?? waiting[0])?.id;
  return typeof id === 'string' ? id : undefined;
}
