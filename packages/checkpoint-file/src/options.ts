import { type BaseCheckpointerOptions, flowPrefix, InvalidArgumentError } from '@flow/core';

/** Options of `new FileCheckpointer(dir, options)`. */
export interface FileCheckpointerOptions extends BaseCheckpointerOptions {
  /**
   * A thread lock older than this is broken even when its holder's pid is alive (a reused pid, or a
   * holder on another host of a shared file system). A holder on this host whose pid is gone is broken
   * at once. Locks are held only for the length of one put, prune or delete.
   * @default 30000
   */
  lockStaleMs?: number;
  /**
   * How long a put, prune or delete waits for a thread lock that another live process holds before
   * it fails with `StorageError`.
   * @default 60000
   */
  lockTimeoutMs?: number;
}

function positive(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError(`${flowPrefix('file')}${what} must be a positive number of milliseconds`);
  }
  return value;
}

/** Checks the options; resolves the lock timings with their defaults. */
export function lockTimings(options: FileCheckpointerOptions): { staleMs: number; timeoutMs: number } {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(`${flowPrefix('file')}options must be an object`);
  }
  return {
    staleMs: positive(options.lockStaleMs, 'lockStaleMs', 30_000),
    timeoutMs: positive(options.lockTimeoutMs, 'lockTimeoutMs', 60_000),
  };
}
