/**
 * Serializes async work per key inside this process: callers queue on a promise chain and start the moment
 * the previous holder finishes, with no polling. Shared by every FileCheckpointer in the process, so two
 * instances on the same directory never race each other for the file lock (only other processes do).
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }

  /** How many keys have work queued or running (for tests: the map must not leak). */
  get size(): number {
    return this.#tails.size;
  }
}
