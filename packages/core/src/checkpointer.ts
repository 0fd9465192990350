import type { Checkpoint, ThreadInfo } from './checkpoint.js';
import type { ListOptions, ListThreadsOptions, PruneBounds } from './validation.js';

/** Options of a conditional `put`. */
export interface PutOptions {
  /** Write only if the stored (thread, step) has this revision; `0`: only if nothing is stored there. */
  ifRevision?: number;
}

/**
 * The storage protocol every backend implements (SPEC section 3). Every method runs `setup()` lazily first.
 * Most backends extend `BaseCheckpointer`, which validates arguments and encodes records once for all of them.
 */
export interface Checkpointer {
  /** Creates or migrates storage. Idempotent, safe when several processes call it at once. */
  setup(): Promise<void>;
  /** Stores a checkpoint; resolves with it as stored (`revision` and `ts` set). */
  put(cp: Checkpoint, opts?: PutOptions): Promise<Checkpoint>;
  /** The checkpoint at `step`, or the one with the highest step; `undefined` when absent. */
  get(thread: string, step?: number): Promise<Checkpoint | undefined>;
  /** The thread's checkpoints, newest step first. */
  list(thread: string, opts?: ListOptions): Promise<Checkpoint[]>;
  /** One entry per stored thread, in code-point order of thread id. Never reads state. */
  listThreads(opts?: ListThreadsOptions): Promise<ThreadInfo[]>;
  /** Removes a thread's whole history; resolves with how many checkpoints were removed. */
  deleteThread(thread: string): Promise<number>;
  /** Removes old checkpoints (never the latest); resolves with how many were removed. */
  prune(thread: string, bounds: PruneBounds): Promise<number>;
  /** Releases what the checkpointer opened (not a pool or client the user passed in). */
  close(): Promise<void>;
}
