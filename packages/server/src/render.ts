import { type Checkpoint, type PlainJson, type ThreadInfo, toPlainJson } from '@flow/core';

/** A checkpoint as the API shows it: every field of `toJSON()`, state and payload as plain JSON. */
export function checkpointJson(cp: Checkpoint): PlainJson {
  return toPlainJson(cp.toJSON());
}

/** A run's result (`{ thread, status, state, step, interrupt?, interrupts? }`) as plain JSON. */
export function resultJson(result: unknown): PlainJson {
  return toPlainJson(result);
}

/** A `ThreadInfo` as plain JSON (its error included, when the run failed). */
export function threadInfoJson(info: ThreadInfo): PlainJson {
  return toPlainJson(info);
}
