import type { Checkpointer } from '@flow/core';
import type { ChannelVersions } from '@langchain/langgraph-checkpoint';
import type { StoredValue } from './stored-value.js';
import { WriteBatch } from './write-batch.js';

/** A checkpoint this process has written or read: where it is, and what a child inherits from it. */
export interface Known {
  id: string;
  step: number;
  versions: ChannelVersions;
  values: Record<string, StoredValue>;
  sorted: boolean;
  /** The nodes LangGraph runs from it (its @flow `next`). */
  next: readonly string[];
  /** Its record was read as interrupted: a task's writes there may answer a question, so they re-derive it. */
  interrupted?: boolean;
}

/** What this process knows of one @flow thread: its latest step, recent checkpoints, puts in flight. */
export class ThreadCache {
  /** The latest checkpoint seen or reserved; null: the thread is empty; undefined: not known. */
  latest: { step: number; id: string; sorted: boolean } | null | undefined;
  readonly known = new Map<string, Known>();
  /** Puts under way, by checkpoint id: writes for a checkpoint wait for its put. */
  readonly pending = new Map<string, Promise<Known | undefined>>();
  /** How many puts are under way on the thread. */
  busy = 0;
  /** Writes waiting for the put of a checkpoint this process has not seen yet, by checkpoint id. */
  readonly #awaited = new Map<string, (() => void)[]>();
  #idleCheck = false;
  /** Task writes waiting to go out with the thread's next put. */
  readonly writes: WriteBatch;

  constructor(checkpointer: Checkpointer, thread: string) {
    this.writes = new WriteBatch(checkpointer, thread);
  }

  remember(known: Known): void {
    this.known.delete(known.id);
    this.known.set(known.id, known);
    // A child inherits from its parent, nearly always the newest: a few are enough.
    if (this.known.size > 8) this.known.delete(this.known.keys().next().value as string);
    if (this.latest !== undefined && this.latest !== null && known.step >= this.latest.step)
      this.latest = { step: known.step, id: known.id, sorted: known.sorted };
  }

  /** Counts `promise` as a put under way until it settles (one reaction, not a settled copy and another). */
  track<T>(promise: Promise<T>): Promise<T> {
    this.busy++;
    promise.then(this.#settled, this.#settled);
    return promise;
  }

  readonly #settled = (): void => {
    if (--this.busy === 0) this.#whenIdle();
  };

  /** Notes the put of checkpoint `id` under way, and wakes the writes waiting for it. */
  putting(id: string, done: Promise<Known | undefined>): void {
    this.pending.set(id, done);
    const waiting = this.#awaited.get(id);
    if (waiting === undefined) return;
    this.#awaited.delete(id);
    for (const wake of waiting) wake();
  }

  /**
   * Resolves once a put of checkpoint `id` is under way here, or once the thread has had no put under way for
   * a turn of the event loop (LangGraph chains each put after the one before, so the next is called a few
   * promise jobs after the last settles): then none is coming from this process. Only the writes of that one
   * checkpoint wake when its put comes, however many wait for later ones.
   */
  putOf(id: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiting = this.#awaited.get(id);
      if (waiting === undefined) this.#awaited.set(id, [resolve]);
      else waiting.push(resolve);
      if (this.busy === 0) this.#whenIdle();
    });
  }

  #whenIdle(): void {
    if (this.#idleCheck || this.#awaited.size === 0) return;
    this.#idleCheck = true;
    setImmediate(() => {
      this.#idleCheck = false;
      if (this.busy > 0) return; // a put came meanwhile: its end checks again
      const waiting = [...this.#awaited.values()];
      this.#awaited.clear();
      for (const list of waiting) for (const wake of list) wake();
    });
  }
}

/** Thread caches, the least recently used dropped past `size`. */
export class ThreadCaches {
  readonly #threads = new Map<string, ThreadCache>();
  /** The most recently used entry (the last of `#threads`). */
  #last: { thread: string; cache: ThreadCache } | undefined;
  constructor(
    readonly checkpointer: Checkpointer,
    readonly size = 1024,
  ) {}

  of(thread: string): ThreadCache {
    // A graph calls this for one thread several times per step: already the most recent, it stays in place.
    if (this.#last !== undefined && this.#last.thread === thread) return this.#last.cache;
    let cache = this.#threads.get(thread);
    if (cache !== undefined) {
      this.#threads.delete(thread);
    } else {
      cache = new ThreadCache(this.checkpointer, thread);
      if (this.#threads.size >= this.size) {
        for (const [key, old] of this.#threads) {
          if (old.busy === 0) {
            this.#threads.delete(key);
            break;
          }
        }
      }
    }
    this.#threads.set(thread, cache);
    this.#last = { thread, cache };
    return cache;
  }

  forget(thread: string): void {
    this.#threads.delete(thread);
    if (this.#last?.thread === thread) this.#last = undefined;
  }
}
