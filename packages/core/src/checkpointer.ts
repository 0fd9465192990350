import type { Checkpoint, ThreadInfo } from './checkpoint.js';
import type { Lease, LeaseRequest } from './lease.js';
import type { ListOptions, ListThreadsOptions, PruneBounds } from './validation.js';
import type { PendingWrite } from './writes.js';

/** Options of a conditional `put`. */
export interface PutOptions {
  /** Write only if the stored (thread, step) has this revision; `0`: only if nothing is stored there. */
  ifRevision?: number;
  /**
   * Writes stored for (cp.thread, cp.step) in the same atomic operation as the checkpoint: both or neither.
   * First value wins per (node, key), as with `putWrites`.
   */
  writes?: readonly PendingWrite[];
}

/**
 * The storage protocol every backend implements (docs/protocol.md). Every method runs `setup()` lazily first.
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
  /**
   * Stores per-super-step results for (thread, step the nodes read): the first value stored for a (node, key)
   * wins, later ones are ignored. Removed by `deleteThread`, and by `prune` with their step.
   */
  putWrites(thread: string, step: number, writes: readonly PendingWrite[]): Promise<void>;
  /** The writes stored for (thread, step), in code-point order of (node, key). */
  getWrites(thread: string, step: number): Promise<PendingWrite[]>;
  /**
   * Takes (or renews, for the same owner) the thread's lease for `ttlMs`. Resolves with the lease, or
   * `undefined` when another owner holds a live one. A lease whose owner process is gone on this host counts
   * as expired.
   */
  acquireLease(thread: string, request: LeaseRequest): Promise<Lease | undefined>;
  /** Extends the owner's live lease by `ttlMs` from now; `false` when the owner no longer holds it. */
  renewLease(thread: string, request: LeaseRequest): Promise<boolean>;
  /** Ends the owner's lease (nothing when it does not hold it). */
  releaseLease(thread: string, owner: string): Promise<void>;
  /** The thread's live lease, if any. */
  getLease(thread: string): Promise<Lease | undefined>;
  /** Releases what the checkpointer opened (not a pool or client the user passed in). */
  close(): Promise<void>;
}
