import type { WriteRecord } from '@flow/core';

/** A `putWrites` waiting for a put to carry it. */
export interface HeldWrites {
  step: number;
  writes: WriteRecord[];
  settle(outcome: Promise<void>): void;
}

/**
 * `putWrites` calls held for one microtask, by thread: a put of the same thread issued in the same tick (as a
 * LangGraph.js saver puts the checkpoint that follows a task's writes) takes them into its own statement, so
 * both cost one round trip and one commit. When no put comes, they go alone, as they would have. Nothing
 * resolves before Postgres answered the statement that stored it.
 */
export class WritesAwaitingPut {
  readonly #held = new Map<string, HeldWrites>();

  /** Holds the writes; `alone` stores them by themselves if no put takes them this tick. */
  hold(
    thread: string,
    step: number,
    writes: WriteRecord[],
    alone: (step: number, writes: WriteRecord[]) => Promise<void>,
  ): Promise<void> {
    const before = this.#held.get(thread);
    if (before !== undefined && before.step === step) {
      // Same step: one batch, in call order (the first value of a key still wins).
      const resolved = new Promise<void>((resolve, reject) => {
        const settle = before.settle;
        before.writes = [...before.writes, ...writes];
        before.settle = (outcome) => {
          settle(outcome);
          outcome.then(resolve, reject);
        };
      });
      return resolved;
    }
    if (before !== undefined) {
      this.#held.delete(thread);
      before.settle(alone(before.step, before.writes));
    }
    return new Promise<void>((resolve, reject) => {
      const held: HeldWrites = {
        step,
        writes,
        settle: (outcome) => outcome.then(resolve, reject),
      };
      this.#held.set(thread, held);
      queueMicrotask(() => {
        if (this.#held.get(thread) !== held) return;
        this.#held.delete(thread);
        held.settle(alone(held.step, held.writes));
      });
    });
  }

  /** The writes held for `thread`, now the caller's to store (and settle). */
  take(thread: string): HeldWrites | undefined {
    const held = this.#held.get(thread);
    if (held !== undefined) this.#held.delete(thread);
    return held;
  }
}
