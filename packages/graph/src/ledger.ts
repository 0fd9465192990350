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
 *
 * A value in memory may be an object node code holds (what a task's `fn` returned, a value `task` handed out)
 * and has since changed, so what is stored is read back from the store: by `task` for a value handed out
 * before, and by `carried` for the continuation checkpoint.
 */
export class Ledger {
  // Created on the first write: a super-step of one node (the common case) never allocates it.
  #map: Map<string, PendingWrite> | undefined;
  /** Writes whose value in memory node code holds: what `record` stored, and each value `task` handed out. */
  #held: Set<string> | undefined;
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
      this.#held ??= new Set();
      this.#held.add(id(node, answerKey(k)));
      out.push(w.value);
    }
  }

  /**
   * The stored value of (node, key) to hand to node code, as the serializer round-trips it: the value carried
   * in the first time, read back from the store once node code may hold (and may have changed) the one in
   * memory — a node run again in the same call (a retry) sees what a run in another process would.
   */
  async take(node: string, key: string): Promise<PendingWrite | undefined> {
    const write = this.get(node, key);
    if (write === undefined) return undefined;
    const k = id(node, key);
    this.#held ??= new Set();
    if (!this.#held.has(k) || this.checkpointer === undefined) {
      this.#held.add(k);
      return write;
    }
    const stored = await this.checkpointer.getWrites(this.thread, this.step);
    return stored.find((w) => w.node === node && w.key === key) ?? write;
  }

  /** Stores a write durably (a no-op once the super-step is over, or without a checkpointer). */
  async record(node: string, key: string, value: unknown): Promise<void> {
    if (this.#closed) return;
    const write = { node, key, value };
    if (this.checkpointer !== undefined) await this.checkpointer.putWrites(this.thread, this.step, [write]);
    if (!this.#closed) {
      this.#writes.set(id(node, key), write);
      this.#held ??= new Set();
      this.#held.add(id(node, key));
    }
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

  /**
   * Everything to carry into a continuation checkpoint (interrupt, failure): what the store holds for the step
   * (never a value node code changed after it was stored), and the writes only kept in memory.
   */
  async carried(): Promise<PendingWrite[]> {
    const map = this.#map;
    if (map === undefined) return [];
    if (this.checkpointer === undefined || this.#held === undefined) return [...map.values()];
    const out: PendingWrite[] = [];
    const stored = new Set<string>();
    for (const w of await this.checkpointer.getWrites(this.thread, this.step)) {
      if (w.key === PENDING) continue;
      stored.add(id(w.node, w.key));
      out.push(w);
    }
    for (const [k, w] of map) if (!stored.has(k)) out.push(w);
    return out;
  }
}

/** Whether a write key is an answer (`answer:<k>`). */
export function isAnswerKey(key: string): boolean {
  return ANSWER.test(key);
}
