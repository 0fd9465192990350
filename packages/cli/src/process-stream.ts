import type { OutputStream } from './io.js';

/**
 * Thrown by a write to stdout once its reader has gone away (`flow threads | head -1`): the command stops
 * there, and the CLI ends quietly with the status it would have had.
 */
export class OutputClosed extends Error {
  override readonly name = 'OutputClosed';
}

/** A process stream (stdout or stderr) that survives its reader going away and can say when it is flushed. */
export interface ProcessStream extends OutputStream {
  /** Whether the reader went away (EPIPE) or the stream failed: later writes are dropped. */
  readonly closed: boolean;
  /** Resolves when the stream's buffer is below its high-water mark (at once when it already is). */
  drained(): Promise<void>;
  /** Resolves when every write so far has reached the OS, or the stream closed. */
  flushed(): Promise<void>;
}

/**
 * Wraps `process.stdout` or `process.stderr`. Writes to a pipe are asynchronous: the process must not exit
 * before they are flushed (`flushed()`), and a slow reader must hold the writer back (`drained()`) instead
 * of the output piling up in memory. When the reader goes away, the stream's error is absorbed; then writes
 * to stdout (`throwWhenClosed`) throw `OutputClosed` so the command stops, and writes to stderr are dropped
 * so an error's exit code survives a closed `2>&1 | head -1`.
 */
export function guardProcessStream(stream: NodeJS.WriteStream, throwWhenClosed: boolean): ProcessStream {
  let closed = false;
  let pending = 0;
  const waiters = new Set<() => void>();
  const wake = () => {
    // Each waiter checks its condition again and, if it still does not hold, waits anew.
    const woken = [...waiters];
    waiters.clear();
    for (const wakeUp of woken) wakeUp();
  };
  const settle = () => {
    pending--;
    if (pending === 0) wake();
  };
  stream.on('error', () => {
    // EPIPE (the reader went away) or a failed write: either way nothing more can be written.
    closed = true;
    wake();
  });
  stream.on('drain', wake);
  stream.on('close', () => {
    closed = true;
    wake();
  });
  const waitFor = (ready: () => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => (ready() ? resolve() : waiters.add(check));
      check();
    });
  return {
    get isTTY() {
      return stream.isTTY === true;
    },
    get closed() {
      return closed;
    },
    write(text: string) {
      if (closed) {
        if (throwWhenClosed) throw new OutputClosed('the reader of the output went away');
        return false;
      }
      pending++;
      return stream.write(text, settle);
    },
    async drained() {
      await waitFor(() => closed || !stream.writableNeedDrain);
      if (closed && throwWhenClosed) throw new OutputClosed('the reader of the output went away');
    },
    flushed: () => waitFor(() => closed || pending === 0),
  };
}
