import type { ThreadMemo } from './encode.js';

/**
 * Each thread's memo of its last put through this instance, least recently used first, bounded by threads
 * and by the characters of chunk text held. A thread without one just writes all its chunks again.
 */
export class ThreadMemos {
  readonly #memos = new Map<string, ThreadMemo>();
  #bytes = 0;

  constructor(
    readonly maxThreads = 1024,
    readonly maxBytes = 64 * 1024 * 1024,
  ) {}

  /** Whether a memo of about `chars` characters of chunk text would be kept (see `set`). */
  fits(chars: number): boolean {
    return chars <= this.maxBytes / 4;
  }

  get(thread: string): ThreadMemo | undefined {
    return this.#memos.get(thread);
  }

  set(thread: string, memo: ThreadMemo): void {
    this.delete(thread);
    if (!this.fits(memo.bytes)) return;
    this.#memos.set(thread, memo);
    this.#bytes += memo.bytes;
    for (const [oldest, old] of this.#memos) {
      if (this.#memos.size <= this.maxThreads && this.#bytes <= this.maxBytes) break;
      this.#memos.delete(oldest);
      this.#bytes -= old.bytes;
    }
  }

  delete(thread: string): void {
    const old = this.#memos.get(thread);
    if (old === undefined) return;
    this.#memos.delete(thread);
    this.#bytes -= old.bytes;
  }

  clear(): void {
    this.#memos.clear();
    this.#bytes = 0;
  }
}
