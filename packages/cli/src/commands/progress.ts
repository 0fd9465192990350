import type { OutputStream } from '../io.js';

/**
 * A one-line progress indicator on a terminal, redrawn in place at most every `intervalMs`.
 * Off the terminal (a pipe, a log file) it writes nothing, so output stays clean for scripts.
 */
export class ProgressLine {
  readonly #stream: OutputStream;
  readonly #enabled: boolean;
  readonly #intervalMs: number;
  #last = 0;
  #shown = false;

  constructor(stream: OutputStream, intervalMs = 100) {
    this.#stream = stream;
    this.#enabled = stream.isTTY === true;
    this.#intervalMs = intervalMs;
  }

  /** Shows `text` unless the line was redrawn less than `intervalMs` ago. */
  update(text: string): void {
    if (!this.#enabled) return;
    const now = Date.now();
    if (this.#shown && now - this.#last < this.#intervalMs) return;
    this.#last = now;
    this.#shown = true;
    this.#stream.write(`\r\u001b[2K${text}`);
  }

  /** Erases the line, so the next output starts on a clean line. */
  clear(): void {
    if (this.#shown) this.#stream.write('\r\u001b[2K');
    this.#shown = false;
  }
}
