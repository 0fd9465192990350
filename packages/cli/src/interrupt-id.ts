import type { Checkpoint } from '@flow/core';

/**
 * The id of the interrupt an interrupted checkpoint waits on, as the engine names it, or undefined when the
 * engine installed has no interrupt ids (or nothing waits). The engine is the one place the rule lives.
 */
export async function interruptIdOf(cp: Checkpoint): Promise<string | undefined> {
  if (!cp.interrupted) return undefined;
  let graph: { pendingInterrupts?: (cp: Checkpoint) => { id: string | null }[] };
  try {
    graph = (await import('@flow/graph')) as typeof graph;
  } catch {
    return undefined;
  }
  const pending = graph.pendingInterrupts;
  // Only the one-argument form reads a checkpoint alone.
  if (typeof pending !== 'function' || pending.length !== 1) return undefined;
  const id = pending(cp)[0]?.id;
  return typeof id === 'string' ? id : undefined;
}
