import { type Checkpoint, type PlainJson, type ThreadInfo, toPlainJson } from '@flow/core';
import { stateVersionOf } from './state-version.js';

/** The `--json` form of a `ThreadInfo`: exactly its fields, in a stable order. */
export function threadInfoJson(info: ThreadInfo): PlainJson {
  return {
    thread: info.thread,
    latestStep: info.latestStep,
    interrupted: info.interrupted,
    done: info.done,
    failed: info.failed,
    error: info.error === null ? null : { node: info.error.node, message: info.error.message },
    ts: info.ts,
  };
}

/**
 * The `--json` form of a checkpoint: the fields of `Checkpoint#toJSON()` (`thread`, `step`, `state`,
 * `next`, `interrupted`, `interruptNode`, `interruptPayload`, `ts`, `revision`, `done`, `error`), with `state` and
 * `interruptPayload` rendered by `toPlainJson` after `redact`.
 */
export function checkpointJson(cp: Checkpoint, redact: (value: unknown) => unknown = (v) => v): PlainJson {
  return {
    thread: cp.thread,
    step: cp.step,
    state: toPlainJson(redact(cp.state)),
    next: [...cp.next],
    interrupted: cp.interrupted,
    interruptNode: cp.interruptNode,
    interruptPayload: toPlainJson(redact(cp.interruptPayload)),
    ts: cp.ts,
    revision: cp.revision,
    done: cp.done,
    stateVersion: stateVersionOf(cp),
    error: cp.error === null ? null : { node: cp.error.node, message: cp.error.message },
  };
}

/** How much of an item's JSON text `JsonArrayWriter` indents and writes at once. */
const SLICE = 1024 * 1024;

/**
 * Streams one JSON array: items are written as they come, so a large listing never sits in memory,
 * and the output is still a single JSON document.
 */
export class JsonArrayWriter {
  readonly #write: (text: string) => void;
  #count = 0;

  constructor(write: (text: string) => void) {
    this.#write = write;
  }

  push(item: PlainJson): void {
    const text = JSON.stringify(item, null, 2);
    this.#write(this.#count === 0 ? '[\n  ' : ',\n  ');
    // Indented and written a slice at a time: one more copy of a large state's text is never made.
    for (let at = 0; at < text.length; at += SLICE) {
      this.#write(text.slice(at, at + SLICE).replace(/\n/g, '\n  '));
    }
    this.#count++;
  }

  /** Closes the array (`[]` when nothing was pushed). */
  end(): void {
    this.#write(this.#count === 0 ? '[]\n' : '\n]\n');
  }
}
