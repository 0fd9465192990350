import { type Checkpoint, type Checkpointer, createRedactor, statusOf } from '@flow/core';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { formatAge } from '../format/age.js';
import { prettyValue } from '../format/inspect.js';
import { threadLabel } from '../format/label.js';
import { checkpointJson } from '../format/records.js';
import { stateVersionOf } from '../format/state-version.js';
import { errorLabel, statusStyle } from './threads.js';

/** Options of `flow show`. */
export interface ShowOptions {
  step?: number;
  redact: string[];
  json: boolean;
}

/** The error for a thread the store does not hold. */
export function threadNotFound(thread: string): CliError {
  return new CliError(`thread ${JSON.stringify(thread)} not found`);
}

/** Reads one checkpoint, or fails with a one-line error naming what is missing. */
export async function readCheckpoint(
  store: Checkpointer,
  thread: string,
  step?: number,
): Promise<Checkpoint> {
  const cp = await store.get(thread, step);
  if (cp !== undefined) return cp;
  if (step === undefined) throw threadNotFound(thread);
  const latest = await store.get(thread);
  if (latest === undefined) throw threadNotFound(thread);
  throw new CliError(`thread ${JSON.stringify(thread)} has no step ${step} (latest is ${latest.step})`);
}

/** `flow show`: one checkpoint, state pretty-printed (or as plain JSON), optionally with keys masked. */
export async function showCommand(
  ctx: Context,
  store: Checkpointer,
  thread: string,
  opts: ShowOptions,
): Promise<void> {
  const cp = await readCheckpoint(store, thread, opts.step);
  const redact = opts.redact.length > 0 ? createRedactor(opts.redact) : (v: unknown) => v;
  if (opts.json) {
    ctx.print(JSON.stringify(checkpointJson(cp, redact), null, 2));
    return;
  }
  const { color } = ctx;
  const status = statusOf(cp);
  const field = (name: string, value: string) => ctx.print(`${color.bold(name.padEnd(10))} ${value}`);
  field('thread', threadLabel(cp.thread));
  field('step', String(cp.step));
  field(
    'status',
    statusStyle(color, status)(status) + (cp.interruptNode === null ? '' : ` at ${cp.interruptNode}`),
  );
  field('next', cp.next.length === 0 ? color.dim('(none)') : cp.next.join(', '));
  field('written', `${cp.ts} ${color.dim(`(${formatAge(cp.ts, ctx.io.now())})`)}`);
  field('revision', String(cp.revision));
  field('version', `${stateVersionOf(cp)} ${color.dim('(state version)')}`);
  if (cp.error !== null) field('error', color.red(errorLabel(cp.error)));
  if (cp.interrupted || cp.interruptPayload !== null) {
    ctx.print(color.bold('interrupt payload'));
    ctx.print(prettyValue(redact(cp.interruptPayload), color.enabled));
  }
  ctx.print(color.bold('state'));
  ctx.print(prettyValue(redact(cp.state), color.enabled));
}
