import { type Checkpoint, type PlainJson, type ThreadInfo, toPlainJson } from '@flow/core';
import type { GraphEntry } from './graphs.js';
import { interruptsOf } from './interrupts.js';

/**
 * A checkpoint as the API shows it: every field of `toJSON()`, state and payload as plain JSON, and for an
 * interrupted one `interrupts`: what it waits on, with the ids to answer with.
 */
export async function checkpointJson(cp: Checkpoint, graph: GraphEntry): Promise<PlainJson> {
  const interrupts = await interruptsOf(cp, graph);
  return toPlainJson(interrupts === undefined ? cp.toJSON() : { ...cp.toJSON(), interrupts });
}

/** A run's result (`{ thread, status, state, step, interrupt?, interrupts? }`) as plain JSON. */
export function resultJson(result: unknown): PlainJson {
  return toPlainJson(result);
}

/**
 * A `ThreadInfo` as JSON: it is plain JSON already (strings, numbers, booleans, and the error's node and
 * message), so it goes out as the store gave it, without a copy — a page of runs costs what listing it costs.
 */
export function threadInfoJson(info: ThreadInfo): ThreadInfo {
  return info;
}
