import type { Checkpointer, PendingWrite } from '@flow/core';

/** The write key of a node's completed update. */
export const UPDATE = 'update';
/** The write key of a pending interrupt: `{ position, payload }` (kept on interrupt checkpoints only). */
export const PENDING = 'interrupt';
/** The write key of a durable task's value. */
export const taskKey = (name: string) => `task:${name}`;
/** The write key of the answer to a node's `position`-th `interrupt()` call. */
export const answerKey = (position: number) => `answer:${position}`;

const ANSWER = /^answer:(0|[1-9][0-9]*)$/;
const id = (node: string, key: string) => `${node}\u0000${key}`;

/**
 * What one super-step has stored so far — completed updates, task values, answers — keyed by (node, key), as
 * writes of the step its nodes read. Starts from the writes a claim carried over; `record` stores a new one
 * durably (first value wins), `remember` keeps one in memory for the continuation checkpoint only.
 */
export class Ledger {
  // Created on the first write: a super-step of one node (the common case) never allocates it.
  #map: Map<string, PendingWrite> | undefined;
  #closed = false;

  get #writes(): Map<string, PendingWrite> {
    this.#map ??= new Map();
    return this.#map;
  }

  constructor(
    readonly checkpointer: Checkpointer | undefined,
    readonly thread: string,
    readonly step: number,
    carried: readonly PendingWrite[],
  ) {
    // An index loop: no iterator objects for the empty list of almost every super-step.
    for (let i = 0; i < carried.length; i++) {
      const w = carried[i] as PendingWrite;
      if (w.key !== PENDING) this.#writes.set(id(w.node, w.key), w);
    }
  }

  /** The stored write for (node, key), if any. */
  get(node: string, key: string): PendingWrite | undefined {
    return this.#map === undefined ? undefined : this.#map.get(id(node, key));
  }

  /** The node's stored answers by position, up to the first position without one. */
  answers(node: string): unknown[] | undefined {
    const map = this.#map;
    if (map === undefined) return undefined;
    const out: unknown[] = [];
    for (let k = 0; ; k++) {
      const w = map.get(id(node, answerKey(k)));
      if (w === undefined) return out.length === 0 ? undefined : out;
      out.push(w.value);
    }
  }

  /** Stores a write durably (a no-op once the super-step is over, or without a checkpointer). */
  async record(node: string, key: string, value: unknown): Promise<void> {
    if (this.#closed) return;
    const write = { node, key, value };
    if (this.checkpointer !== undefined) await this.checkpointer.putWrites(this.thread, this.step, [write]);
    if (!this.#closed) this.#writes.set(id(node, key), write);
  }

  /** Keeps a write for the continuation checkpoint without storing it now. */
  remember(node: string, key: string, value: unknown): void {
    if (!this.#closed && !this.#writes.has(id(node, key)))
      this.#writes.set(id(node, key), { node, key, value });
  }

  /** Ends the super-step: late results of abandoned node runs are no longer recorded. */
  close(): void {
    this.#closed = true;
  }

  /** Everything to carry into a continuation checkpoint (interrupt, failure, claim). */
  carried(): PendingWrite[] {
    return this.#map === undefined ? [] : [...this.#map.values()];
  }
}

/** Whether a write key is an answer (`answer:<k>`). */
export function isAnswerKey(key: string): boolean {
  return ANSWER.test(key);
}
