import type { Checkpointer, PendingWrite as FlowWrite } from '@flow/core';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

interface Held {
  writes: FlowWrite[];
  waiters: Waiter[];
}

/**
 * A thread's task writes on their way to the store. LangGraph writes a task's results a few promise ticks
 * before it puts the checkpoint that follows them, so the writes wait for that put and go out with it, in
 * the same tick: SQLite's group commit then stores both in one transaction (one fsync), Redis gets both in
 * one flush of its socket. When no put comes (an interrupt, a task still running beside it), they go at the
 * end of this turn of the event loop. Writes held for one step are stored with one call. Nothing resolves
 * before the store has them.
 */
export class WriteBatch {
  readonly #held = new Map<number, Held>();
  /** A flush at the end of this turn is queued; a put's flush leaves it queued for the next writes. */
  #scheduled = false;

  constructor(
    private readonly checkpointer: Checkpointer,
    private readonly thread: string,
  ) {}

  /** Whether writes wait here to go out with the thread's next put. */
  get holding(): boolean {
    return this.#held.size > 0;
  }

  /** Queues `writes` for `step`; resolves once they are stored. */
  add(step: number, writes: readonly FlowWrite[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let held = this.#held.get(step);
      if (held === undefined) {
        held = { writes: [], waiters: [] };
        this.#held.set(step, held);
      }
      held.writes.push(...writes);
      held.waiters.push({ resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(this.#endOfTurn);
      }
    });
  }

  readonly #endOfTurn = (): void => {
    this.#scheduled = false;
    this.flush();
  };

  /** Sends what is held now (called by each put of the thread just before it goes, and at the turn's end). */
  flush(): void {
    if (this.#held.size === 0) return;
    const held = [...this.#held];
    this.#held.clear();
    for (const [step, { writes, waiters }] of held) {
      this.checkpointer.putWrites(this.thread, step, writes).then(
        () => {
          for (const w of waiters) w.resolve();
        },
        (error: unknown) => {
          for (const w of waiters) w.reject(error);
        },
      );
    }
  }
}
