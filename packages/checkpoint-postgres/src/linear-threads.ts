/** How many threads `LinearThreads` remembers at most (the least recently noted are forgotten first). */
const MAX_THREADS = 1024;

/**
 * The threads whose latest record this instance wrote or read had refs (a state stored in chunks). A get of
 * one of them sends the read with chunks at once (one round trip) instead of the checkpoint's row alone
 * first, which would then need a second. Only a guess: either read answers correctly for any record, so a
 * thread another process changed meanwhile costs at most one round trip more, never a wrong answer.
 */
export class LinearThreads {
  readonly #threads = new Set<string>();

  has(thread: string): boolean {
    return this.#threads.has(thread);
  }

  /** Notes what a record of `thread` just written or read was: linear (with refs) or whole. */
  note(thread: string, linear: boolean): void {
    this.#threads.delete(thread);
    if (!linear) return;
    this.#threads.add(thread);
    if (this.#threads.size > MAX_THREADS) {
      for (const oldest of this.#threads) {
        this.#threads.delete(oldest);
        break;
      }
    }
  }

  /** Forgets `thread` (deleted: its next record starts whole). */
  forget(thread: string): void {
    this.#threads.delete(thread);
  }
}
