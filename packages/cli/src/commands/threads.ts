import { type Checkpointer, type RunError, type ThreadStatus, threadStatusOf } from '@flow/core';
import type { Context } from '../context.js';
import { formatAge } from '../format/age.js';
import type { Palette } from '../format/color.js';
import { messageLabel, tableThreadLabel } from '../format/label.js';
import { JsonArrayWriter, threadInfoJson } from '../format/records.js';
import { TableWriter } from '../format/table.js';
import { threadPages } from '../paging.js';

/** Options of `flow threads`. */
export interface ThreadsOptions {
  status?: ThreadStatus;
  limit?: number;
  json: boolean;
}

/** Colours a padded status word: interrupted runs wait for a person, so they stand out. */
export function statusStyle(color: Palette, status: ThreadStatus): (text: string) => string {
  if (status === 'interrupted') return color.yellow;
  if (status === 'failed') return color.red;
  return status === 'done' ? color.green : color.cyan;
}

/** A run's error on one line: `node: message` (no node when the step limit stopped the run). */
export function errorLabel(error: RunError | null): string {
  if (error === null) return '-';
  const message = error.message.replace(/\s+/g, ' ').trim();
  return messageLabel(error.node === null ? message : `${error.node}: ${message}`);
}

/** `flow threads`: one row per thread (thread, latest step, status, age), streamed page by page. */
export async function threadsCommand(ctx: Context, store: Checkpointer, opts: ThreadsOptions): Promise<void> {
  const pages = threadPages(store, { status: opts.status, limit: opts.limit });
  if (opts.json) {
    const out = new JsonArrayWriter((text) => ctx.io.stdout.write(text));
    for await (const page of pages) {
      for (const info of page) out.push(threadInfoJson(info));
      await ctx.drained();
    }
    out.end();
    return;
  }
  const now = ctx.io.now();
  // Listing failed runs is for finding out why they failed: the error goes in a last column.
  const withError = opts.status === 'failed';
  const header = ['THREAD', 'STEP', 'STATUS', 'AGE', ...(withError ? ['ERROR'] : [])];
  const table = new TableWriter(
    header.map((text) => ({ text, style: ctx.color.bold })),
    (line) => ctx.print(line),
  );
  for await (const page of pages) {
    table.writePage(
      page.map((info) => {
        const status = threadStatusOf(info);
        return [
          { text: tableThreadLabel(info.thread) },
          { text: String(info.latestStep) },
          { text: status, style: statusStyle(ctx.color, status) },
          { text: formatAge(info.ts, now), style: ctx.color.dim },
          ...(withError ? [{ text: errorLabel(info.error) }] : []),
        ];
      }),
    );
    await ctx.drained();
  }
  if (!table.started) ctx.print(opts.status ? `no ${opts.status} threads` : 'no threads');
}
