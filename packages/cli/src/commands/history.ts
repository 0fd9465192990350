import { type Checkpoint, type Checkpointer, createRedactor, statusOf, type ThreadStatus } from '@flow/core';
import type { Context } from '../context.js';
import { formatAge } from '../format/age.js';
import { checkpointJson, JsonArrayWriter } from '../format/records.js';
import { isResumeClaim, type StepSummary } from '../format/resume-claim.js';
import { stateVersionOf } from '../format/state-version.js';
import { type Cell, TableWriter } from '../format/table.js';
import { checkpointPages, PAGE_SIZE } from '../paging.js';
import { contentDigest } from './content-digest.js';
import { threadNotFound } from './show.js';
import { statusStyle } from './threads.js';

/** Options of `flow history`. */
export interface HistoryOptions {
  redact: string[];
  json: boolean;
}

/** The label of a resume claim in the STATUS column. */
export const RESUME_CLAIM = 'resume claim';

/**
 * Yields a thread's checkpoints one by one, newest first, each taken out of its page: once the caller lets
 * one go, nothing holds it, so a history of large states is held one state at a time.
 */
async function* oneByOne(first: Checkpoint[], rest: AsyncIterator<Checkpoint[]>): AsyncGenerator<Checkpoint> {
  let page: Checkpoint[] | undefined = first;
  while (page !== undefined) {
    while (page.length > 0) yield page.shift()!;
    const next = await rest.next();
    page = next.done ? undefined : next.value;
  }
}

interface Row extends StepSummary {
  status: ThreadStatus;
  ts: string;
  /** The state version the checkpoint was written with. */
  version: string;
}

/** `flow history`: one line per step, newest first, streamed one checkpoint at a time. */
export async function historyCommand(
  ctx: Context,
  store: Checkpointer,
  thread: string,
  opts: HistoryOptions,
): Promise<void> {
  const pages = checkpointPages(store, thread);
  const first = await pages.next();
  // The first page is read up front so an unknown thread fails before anything is printed.
  if (first.done) throw threadNotFound(thread);
  const steps = oneByOne(first.value, pages);
  if (opts.json) {
    const redact = opts.redact.length > 0 ? createRedactor(opts.redact) : (v: unknown) => v;
    const out = new JsonArrayWriter((text) => ctx.io.stdout.write(text));
    for await (const cp of steps) {
      out.push(checkpointJson(cp, redact));
      await ctx.drained();
    }
    out.end();
    return;
  }
  const { color } = ctx;
  const now = ctx.io.now();
  const table = new TableWriter(
    ['STEP', 'STATUS', 'NEXT', 'VERSION', 'WRITTEN', 'AGE'].map((text) => ({ text, style: color.bold })),
    (line) => ctx.print(line),
  );
  const cells = (row: Row, claim: boolean): Cell[] => [
    { text: String(row.step) },
    claim
      ? { text: RESUME_CLAIM, style: color.dim }
      : { text: row.status, style: statusStyle(color, row.status) },
    { text: row.next.length === 0 ? '-' : row.next.join(',') },
    { text: row.version },
    { text: row.ts },
    { text: formatAge(row.ts, now), style: color.dim },
  ];
  // Rows wait for the step before them (a claim is known by it) and go out a page at a time, so the
  // table's columns are measured on a whole page.
  let rows: Row[] = [];
  const flush = async (count: number) => {
    table.writePage(rows.slice(0, count).map((row, i) => cells(row, isResumeClaim(row, rows[i + 1]))));
    rows = rows.slice(count);
    await ctx.drained();
  };
  for await (const cp of steps) {
    const status = statusOf(cp);
    rows.push({
      step: cp.step,
      next: cp.next,
      interrupted: cp.interrupted,
      failed: status === 'failed',
      status,
      ts: cp.ts,
      version: String(stateVersionOf(cp)),
      state: contentDigest(cp.state),
    });
    if (rows.length > PAGE_SIZE) await flush(PAGE_SIZE);
  }
  await flush(rows.length);
}
