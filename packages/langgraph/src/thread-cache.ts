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

/** Recent checkpoints kept per thread: a put's parent is nearly always the newest, a fork's parent is read. */
const KNOWN_PER_THREAD = 2;
/** Steps of checkpoints seen lately, by id, kept per thread without their values: a lookup reads one step. */
const STEPS_PER_THREAD = 64;

/**
 * Characters of stored values all threads' caches may hold together (about 64 MB of strings): past it the
 * least recently used idle threads are dropped, so a process serving many threads of large states stays
 * bounded. A dropped thread's next call reads its latest checkpoint again.
 */
export const CACHE_CHARS = 64 * 1024 * 1024;

/** About how many characters `values` hold (bytes count one each): what the cache's budget counts. */
export function charsOf(values: Record<string, StoredValue>): number {
  let total = 0;
  for (const key in values) {
    const v = values[key];
    if (v === undefined) continue;
    if ('s' in v) total += v.s.length;
    else if ('b' in v) total += v.b.length;
    else for (const item of v.l) total += item.length;
  }
  return total;
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

  /** Characters the known checkpoints' values hold. */
  chars = 0;
  readonly #seen = new Map<string, { step: number; sorted: boolean }>();
  readonly #resized: (delta: number) => void;

  constructor(checkpointer: Checkpointer, thread: string, resized: (delta: number) => void = () => {}) {
    this.writes = new WriteBatch(checkpointer, thread);
    this.#resized = resized;
  }

  /** Where checkpoint `id` is stored, when this process has seen it lately. */
  seen(id: string): { step: number; sorted: boolean } | undefined {
    return this.known.get(id) ?? this.#seen.get(id);
  }

  remember(known: Known): void {
    this.#seen.delete(known.id);
    this.#seen.set(known.id, { step: known.step, sorted: known.sorted });
    if (this.#seen.size > STEPS_PER_THREAD) this.#seen.delete(this.#seen.keys().next().value as string);
    const before = this.chars;
    this.#forget(known.id);
    this.known.set(known.id, known);
    this.chars += charsOf(known.values);
    // A child inherits from its parent, nearly always the newest: a few are enough.
    if (this.known.size > KNOWN_PER_THREAD) this.#forget(this.known.keys().next().value as string);
    if (this.latest !== undefined && this.latest !== null && known.step >= this.latest.step)
      this.latest = { step: known.step, id: known.id, sorted: known.sorted };
    if (this.chars !== before) this.#resized(this.chars - before);
  }

  #forget(id: string): void {
    const old = this.known.get(id);
    if (old === undefined) return;
    this.known.delete(id);
    this.chars -= charsOf(old.values);
  }

  /**
   * Nothing under way: no put, no writes waiting for a put or to go out with one. Only an idle cache may be
   * dropped; a busy one's put would wake the writes waiting in it, not in the cache that replaced it.
   */
  get idle(): boolean {
    return this.busy === 0 && this.#awaited.size === 0 && !this.writes.holding;
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

/**
 * Thread caches, the least recently used idle one dropped past `size` threads or past `chars` characters of
 * stored values in all of them.
 */
export class ThreadCaches {
  readonly #threads = new Map<string, ThreadCache>();
  /** The most recently used entry (the last of `#threads`). */
  #last: { thread: string; cache: ThreadCache } | undefined;
  /** Characters held by every cache in `#threads`. */
  #chars = 0;

  constructor(
    readonly checkpointer: Checkpointer,
    readonly size = 1024,
    readonly chars = CACHE_CHARS,
  ) {}

  /** Characters of stored values the caches hold now. */
  get heldChars(): number {
    return this.#chars;
  }

  /** A cache changed size: counted while it is still the thread's (a dropped one may finish a call it began). */
  #resized(thread: string, cache: ThreadCache, delta: number): void {
    if (this.#threads.get(thread) !== cache) return;
    this.#chars += delta;
    if (delta > 0 && this.#chars > this.chars) this.#shrink();
  }

  /** Drops idle threads, least recently used first, until within budget; the most recent one always stays. */
  #shrink(): void {
    for (const [thread, cache] of this.#threads) {
      if (this.#chars <= this.chars) return;
      if (!cache.idle || this.#last?.thread === thread) continue;
      this.#drop(thread, cache);
    }
  }

  #drop(thread: string, cache: ThreadCache): void {
    this.#threads.delete(thread);
    this.#chars -= cache.chars;
  }

  of(thread: string): ThreadCache {
    // A graph calls this for one thread several times per step: already the most recent, it stays in place.
    if (this.#last !== undefined && this.#last.thread === thread) return this.#last.cache;
    let cache = this.#threads.get(thread);
    if (cache !== undefined) {
      this.#threads.delete(thread);
    } else {
      const created: ThreadCache = new ThreadCache(this.checkpointer, thread, (delta) =>
        this.#resized(thread, created, delta),
      );
      cache = created;
      if (this.#threads.size >= this.size) {
        for (const [key, old] of this.#threads) {
          if (old.idle) {
            this.#drop(key, old);
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
    const cache = this.#threads.get(thread);
    if (cache !== undefined) this.#drop(thread, cache);
    if (this.#last?.thread === thread) this.#last = undefined;
  }
}
