import { type Checkpoint, toPlainJson } from '@flow/core';
import type { Context } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { closeGraphs, type LoadedGraph, loadGraphs } from '../graph-module.js';
import { interruptIdOf } from '../interrupt-id.js';

/** Options of `flow resume`. */
export interface ResumeCommandOptions {
  graph: string;
  answer: unknown;
  patch: Record<string, unknown> | undefined;
  json: boolean;
}

/** A `--answer` / `--patch` value: JSON. */
export function parseJsonOption(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${flag} must be JSON (a string answer is quoted: ${flag} '"yes"'), got ${text}`);
  }
}

function pickGraph(graphs: Record<string, LoadedGraph>, spec: string): LoadedGraph {
  const names = Object.keys(graphs);
  if (names.length === 1) return graphs[names[0]!]!;
  throw new UsageError(
    `${spec} exports several graphs (${names.join(', ')}): name one with --graph ${spec}#name`,
  );
}

interface Result {
  thread: string;
  status: string;
  step: number;
  state: unknown;
  interrupt?: { node: string; payload: unknown };
}

/**
 * `flow resume`: answers (or patches, or recovers) a run with the graph of a module, and prints its result.
 * The answer carries the id of the interrupt it read, so an interrupt answered meanwhile is refused
 * (ALREADY_RESUMED) instead of the answer landing on the next question.
 */
export async function resumeCommand(ctx: Context, thread: string, opts: ResumeCommandOptions): Promise<void> {
  const graphs = await loadGraphs(opts.graph);
  try {
    const app = pickGraph(graphs, opts.graph);
    const latest = (await app.getState(thread)) as Checkpoint | undefined;
    if (latest === undefined) throw new CliError(`thread ${JSON.stringify(thread)} not found`);
    const options: Record<string, unknown> = {};
    if (opts.answer !== undefined) {
      options.answer = opts.answer;
      const id = await interruptIdOf(latest, app.checkpointer);
      if (id !== undefined) options.interrupt = id;
    }
    if (opts.patch !== undefined) options.patch = opts.patch;
    const result = (await app.resume(thread, options)) as Result;
    if (opts.json) {
      ctx.print(JSON.stringify(toPlainJson(result), null, 2));
      return;
    }
    const where = result.status === 'interrupted' && result.interrupt ? ` at ${result.interrupt.node}` : '';
    ctx.print(`${result.thread}: ${result.status}${where} (step ${result.step})`);
    if (result.interrupt) ctx.print(`question: ${JSON.stringify(toPlainJson(result.interrupt.payload))}`);
    ctx.print(`state: ${JSON.stringify(toPlainJson(result.state), null, 2)}`);
  } finally {
    await closeGraphs(graphs);
  }
}
