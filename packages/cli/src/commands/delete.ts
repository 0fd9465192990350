import { type Checkpointer, deleteIdleThread, type Lease, statusOf } from '@flow/core';
import { confirm } from '../confirm.js';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { threadLabel } from '../format/label.js';
import { plural } from './prune.js';
import { threadNotFound } from './show.js';

/** Options of `flow delete`. */
export interface DeleteOptions {
  /** Skip the confirmation question. */
  yes: boolean;
}

/**
 * `flow delete`: removes a thread's whole history. On a terminal it asks first unless `--yes`;
 * the command line refuses to run without `--yes` when stdin is not a terminal.
 */
export async function deleteCommand(
  ctx: Context,
  store: Checkpointer,
  thread: string,
  opts: DeleteOptions,
): Promise<void> {
  if (!opts.yes) {
    const latest = await store.get(thread);
    if (latest === undefined) throw threadNotFound(thread);
    const question =
      `delete thread ${threadLabel(thread)} (latest step ${latest.step}, ${statusOf(latest)}) ` +
      'and its whole history?';
    if (!(await confirm(ctx.io, question))) throw new CliError('not confirmed: nothing was deleted');
  }
  // Under the thread's lease: a run in flight would write its next step into the deleted thread.
  const result = await deleteIdleThread(store, thread);
  if (!result.deleted) {
    const by = result.holder === undefined ? '' : ` (${holderText(result.holder)})`;
    throw new CliError(
      `thread ${threadLabel(thread)} is being run${by}: nothing was deleted; delete it once that run stops`,
    );
  }
  if (result.removed === 0) throw threadNotFound(thread);
  ctx.print(`deleted thread ${threadLabel(thread)} (${plural(result.removed, 'checkpoint')})`);
}

/** Who holds a lease, for a person: its owner, where it runs, and until when. */
function holderText(lease: Lease): string {
  return `by ${lease.owner} on ${lease.host}, pid ${lease.pid}, lease until ${lease.expiresAt}`;
}
