import { type Checkpointer, createRedactor } from '@flow/core';
import type { Context } from '../context.js';
import { formatAge } from '../format/age.js';
import { checkpointJson, JsonArrayWriter, statusOf } from '../format/records.js';
import { stateVersionOf } from '../format/state-version.js';
import { TableWriter } from '../format/table.js';
import { checkpointPages } from '../paging.js';
import { threadNotFound } from './show.js';
import { statusStyle } from './threads.js';

/** Options of `flow history`. */
export interface HistoryOptions {
  redact: string[];
  json: boolean;
}

/** `flow history`: one line per step, newest first, streamed page by page. */
export async function historyCommand(
  ctx: Context,
  store: Checkpointer,
  thread: string,
  opts: HistoryOptions,
): Promise<void> {
  const pages = checkpointPages(store, thread);
  const first = await pages.next();
  if (first.done) throw threadNotFound(thread);
  const firstPage = first.value;
  // The first page is read up front so an unknown thread fails before anything is printed.
  async function* all() {
    yield firstPage;
    yield* pages;
  }
  if (opts.json) {
    const redact = opts.redact.length > 0 ? createRedactor(opts.redact) : (v: unknown) => v;
    const out = new JsonArrayWriter((text) => ctx.io.stdout.write(text));
    for await (const page of all()) for (const cp of page) out.push(checkpointJson(cp, redact));
    out.end();
    return;
  }
  const { color } = ctx;
  const now = ctx.io.now();
  const table = new TableWriter(
    ['STEP', 'STATUS', 'NEXT', 'VERSION', 'WRITTEN', 'AGE'].map((text) => ({ text, style: color.bold })),
    (line) => ctx.print(line),
  );
  for await (const page of all()) {
    table.writePage(
      page.map((cp) => {
        const status = statusOf(cp);
        return [
          { text: String(cp.step) },
          { text: status, style: statusStyle(color, status) },
          { text: cp.next.length === 0 ? '-' : cp.next.join(',') },
          { text: String(stateVersionOf(cp)) },
          { text: cp.ts },
          { text: formatAge(cp.ts, now), style: color.dim },
        ];
      }),
    );
  }
}
