import type { Checkpointer } from '@flow/core';
import type { Context } from '../context.js';
import { threadLabel } from '../format/label.js';
import { threadNotFound } from './show.js';

/** Bounds of `flow prune`; at least one is set (the command line checks). */
export interface PruneOptions {
  beforeStep?: number;
  olderThan?: Date;
}

/** `count checkpoint(s)`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** `flow prune`: removes old checkpoints of a thread (never its latest) and says how many. */
export async function pruneCommand(
  ctx: Context,
  store: Checkpointer,
  thread: string,
  opts: PruneOptions,
): Promise<void> {
  const removed = await store.prune(thread, {
    ...(opts.beforeStep === undefined ? {} : { beforeStep: opts.beforeStep }),
    ...(opts.olderThan === undefined ? {} : { olderThan: opts.olderThan }),
  });
  // Removing nothing is normal for a known thread; for an unknown one it hides a typo.
  if (removed === 0 && (await store.get(thread)) === undefined) throw threadNotFound(thread);
  ctx.print(`removed ${plural(removed, 'checkpoint')} from thread ${threadLabel(thread)}`);
}
