import { Checkpoint, storedAs, type ThreadInfo } from './checkpoint.js';
import type { Checkpointer, PutOptions } from './checkpointer.js';
import { InvalidArgumentError, isFlowError, isMissingChunkError, prefix, StorageError } from './errors.js';
import {
  assertLeaseRequest,
  type Lease,
  type LeaseRecord,
  type LeaseRequest,
  type LeaseResult,
  leaseRecordOf,
  ownerIsGone,
} from './lease.js';
import { ThreadMemos } from './linear/cache.js';
import { encodeLinear, type ThreadMemo } from './linear/encode.js';
import { SMALL_STATE } from './linear/format.js';
import { type CheckpointRecord, decodeRecord, decodeWrites, encodeRecord, encodeWrites } from './record.js';
import { jsonSerializer, type Serializer } from './serializer.js';
import {
  assertIfRevision,
  assertListOptions,
  assertListThreadsOptions,
  assertStep,
  assertThreadId,
  type ListOptions,
  type ListThreadsOptions,
  type NormalizedPruneBounds,
  normalizePruneBounds,
  type PruneBounds,
} from './validation.js';
import { assertWrites, type PendingWrite, type WriteRecord } from './writes.js';

/**
 * What a storage operation returns: a promise, or the value itself when the backend answers without waiting
 * (SQLite and memory do). A plain value skips a microtask tick per call (measured in tooling/bench's
 * README, "Where the targets stand").
 */
export type Awaitable<T> = T | Promise<T>;

function isPromise<T>(value: Awaitable<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Options every backend built on `BaseCheckpointer` accepts. */
export interface BaseCheckpointerOptions {
  /** How state and interrupt payloads become text. @default jsonSerializer */
  serializer?: Serializer;
  /**
   * How a state is stored. `'linear'`: the parts a put shares with the thread's previous put are stored once, as
   * chunks every later record references, so a thread's stored bytes grow with what its steps change.
   * `'whole'`: every record holds the whole serialized state (the format of records written before chunks).
   * Reads understand both, in any mix. @default 'linear'
   */
  stateStorage?: 'linear' | 'whole';
}

/**
 * The shared half of a backend: argument validation, lazy `setup()`, serialization, and wrapping driver
 * failures into `StorageError`. A backend implements only the storage operations below, on records whose
 * arguments are already checked. docs/writing-a-checkpointer.md is the walk-through.
 */
export abstract class BaseCheckpointer implements Checkpointer {
  /** Short backend name used in error messages: `[flow:NAME] ...`. */
  protected abstract readonly backend: string;
  /**
   * The backend stores `record.chunks` and `record.refs` as docs/writing-a-checkpointer.md says ("Chunks").
   * Until a backend says so, every record it is given holds the whole state, whatever `stateStorage` asks:
   * one written before chunks existed would otherwise drop them and lose the state.
   */
  protected readonly storesChunks: boolean = false;
  protected readonly serializer: Serializer;
  /** Each thread's last put, for sharing chunks; undefined when every record stores the whole state. */
  readonly #memos: ThreadMemos | undefined;
  #ready: Promise<void> | undefined;
  /** Set once setup has succeeded, so later calls skip waiting on it (an await costs a tick per call). */
  #isSetUp = false;
  #closed = false;

  constructor(options: BaseCheckpointerOptions = {}) {
    this.serializer = options.serializer ?? jsonSerializer;
    const storage = options.stateStorage ?? 'linear';
    if (storage !== 'linear' && storage !== 'whole') {
      throw new InvalidArgumentError(
        `${prefix()}stateStorage must be 'linear' or 'whole', got ${JSON.stringify(storage)}`,
      );
    }
    this.#memos = storage === 'linear' ? new ThreadMemos() : undefined;
  }

  /** Creates or migrates storage (idempotent, safe across processes). */
  protected abstract initialize(): Promise<void>;
  /**
   * Stores `record`. With `ifRevision`, writes only when the stored revision equals it (0: nothing stored)
   * and otherwise throws `CheckpointConflict` without changing anything. Resolves with the new revision.
   */
  protected abstract writeRecord(record: CheckpointRecord, ifRevision: number | undefined): Awaitable<number>;
  /** The record at `step`, or the highest step when `step` is undefined. */
  protected abstract readRecord(
    thread: string,
    step: number | undefined,
  ): Awaitable<CheckpointRecord | undefined>;
  /** Records newest step first, with `step < beforeStep` when given, at most `limit` when given. */
  protected abstract readRecords(thread: string, opts: ListOptions): Awaitable<CheckpointRecord[]>;
  /** Thread summaries in code-point order of id, after `after`, filtered by `status`, at most `limit`. */
  protected abstract readThreads(opts: ListThreadsOptions): Awaitable<ThreadInfo[]>;
  /** Removes a whole thread; resolves with the number of checkpoints removed. */
  protected abstract removeThread(thread: string): Awaitable<number>;
  /** Removes checkpoints meeting every given bound, never the thread's latest; resolves with the count. */
  protected abstract removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): Awaitable<number>;
  /** Releases connections and handles this instance opened. */
  protected abstract release(): Promise<void>;
  /**
   * A hint a `StorageError` adds to a driver error's message, for a failure whose cure is a known setting
   * (`undefined`: none). Runs on the failure path only.
   */
  protected hintFor(_error: unknown): string | undefined {
    return undefined;
  }

  /**
   * Stores `record` as `writeRecord` does and, in the same atomic operation, `writes` for (thread, step)
   * (first value wins per (node, key)). If the put fails or conflicts, no write is stored either.
   */
  protected abstract writeRecordWithWrites(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): Awaitable<number>;
  /** Stores writes for (thread, step) that are not stored yet; a (node, key) already stored keeps its value. */
  protected abstract writeWrites(thread: string, step: number, writes: WriteRecord[]): Awaitable<void>;
  /** The writes stored for (thread, step), in code-point order of (node, key). */
  protected abstract readWrites(thread: string, step: number): Awaitable<WriteRecord[]>;
  /**
   * Takes the lease when there is none, it has expired (by the store's clock), it is `lease.owner`'s already
   * (then it is renewed), or its owner is `replace`. Otherwise answers the live holder and changes nothing.
   */
  protected abstract writeLease(
    thread: string,
    lease: LeaseRecord,
    replace: string | undefined,
  ): Awaitable<LeaseResult>;
  /** Extends `owner`'s live lease to now + ttlMs; false (and no change) when `owner` does not hold it. */
  protected abstract extendLease(thread: string, owner: string, ttlMs: number): Awaitable<boolean>;
  /** Removes the lease if `owner` holds it. */
  protected abstract dropLease(thread: string, owner: string): Awaitable<void>;
  /** The live lease on the thread, if any (an expired one is absent). */
  protected abstract readLease(thread: string): Awaitable<Lease | undefined>;

  /** Where a record lives, for `CorruptCheckpointError` messages. Backends override with a path or key. */
  protected locate(thread: string, step: number): string {
    return `thread ${JSON.stringify(thread)} step ${step}`;
  }

  setup(): Promise<void> {
    if (this.#closed) return Promise.reject(this.closedError());
    if (this.#ready === undefined) {
      this.#ready = (async () => this.run('setup', undefined, () => this.initialize()))();
      // A failed setup (say, the server was down) is tried again by the next call.
      this.#ready.then(
        () => {
          this.#isSetUp = true;
        },
        () => {
          this.#ready = undefined;
        },
      );
    }
    return this.#ready;
  }

  async put(cp: Checkpoint, opts?: PutOptions): Promise<Checkpoint> {
    const checked = cp instanceof Checkpoint ? cp : new Checkpoint(cp);
    const ifRevision = opts?.ifRevision;
    assertIfRevision(ifRevision);
    const pending = opts?.writes;
    if (pending !== undefined) assertWrites(pending);
    let encoded = this.#encodeState(checked, this.#memos?.get(checked.thread));
    const writes =
      pending === undefined || pending.length === 0
        ? undefined
        : encodeWrites(checked.thread, checked.step, pending, this.serializer, this.backend);
    if (!this.#isSetUp) await this.setup();
    let revision: number;
    try {
      revision = await this.#write(encoded.record, ifRevision, writes);
    } catch (error) {
      // A chunk this instance remembers is gone (the thread was deleted or pruned elsewhere): nothing was
      // stored, so the put is made again, once, with every chunk in it.
      if (!isMissingChunkError(error) || encoded.memo === undefined) throw error;
      this.#memos?.delete(checked.thread);
      encoded = this.#encodeState(checked, undefined);
      revision = await this.#write(encoded.record, ifRevision, writes);
    }
    if (encoded.memo !== undefined) this.#memos?.set(checked.thread, encoded.memo);
    return storedAs(checked, encoded.record.ts, revision);
  }

  #write(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[] | undefined,
  ): Awaitable<number> {
    return this.run('put', record.thread, () =>
      writes === undefined
        ? this.writeRecord(record, ifRevision)
        : this.writeRecordWithWrites(record, ifRevision, writes),
    );
  }

  /**
   * The record of a put: the whole state when it is small (the text is made once, as always) or when linear
   * storage is off; else a skeleton and chunks, sharing what `memo` (the thread's last put) stored.
   */
  #encodeState(
    cp: Checkpoint,
    memo: ThreadMemo | undefined,
  ): { record: CheckpointRecord; memo?: ThreadMemo } {
    if (this.#memos === undefined || !this.storesChunks) {
      return { record: encodeRecord(cp, this.serializer, this.backend) };
    }
    let whole: CheckpointRecord | undefined;
    if (memo === undefined) {
      whole = encodeRecord(cp, this.serializer, this.backend);
      // A state too large for a memo is stored whole: with no memo the next put could share nothing, and the
      // walk would hold its parts' texts beside the whole text (a heap that fits a few states would not).
      // An envelope's own length would send a state of under 2 KB of JSON on a walk that can only decline.
      const size = this.serializer.wrappedLength?.(whole.state) ?? whole.state.length;
      if (size < SMALL_STATE || !this.#memos.fits(size)) return { record: whole };
    }
    let linear: ReturnType<typeof encodeLinear>;
    try {
      linear = encodeLinear(cp.state, cp, this.serializer, memo);
    } catch {
      // Whatever the walk cannot take, the whole encoding reports properly (or stores).
      linear = undefined;
    }
    if (linear === undefined) return { record: whole ?? encodeRecord(cp, this.serializer, this.backend) };
    if (linear.stateText === undefined) {
      // Nothing to share with the last put: whole, with a memo of its parts for the next put to share.
      return {
        record: whole ?? encodeRecord(cp, this.serializer, this.backend, linear.wholeText),
        memo: linear.memo,
      };
    }
    const record = whole ?? encodeRecord(cp, this.serializer, this.backend, linear.stateText);
    return {
      record: { ...record, state: linear.stateText, refs: linear.refs, chunks: linear.chunks },
      memo: linear.memo,
    };
  }

  async get(thread: string, step?: number): Promise<Checkpoint | undefined> {
    assertThreadId(thread);
    if (step !== undefined) assertStep(step);
    if (!this.#isSetUp) await this.setup();
    const found = this.run('get', thread, () => this.readRecord(thread, step));
    const record = isPromise(found) ? await found : found;
    return record && this.decode(record);
  }

  async list(thread: string, opts?: ListOptions): Promise<Checkpoint[]> {
    assertThreadId(thread);
    assertListOptions(opts);
    if (!this.#isSetUp) await this.setup();
    const found = this.run('list', thread, () => this.readRecords(thread, opts ?? {}));
    const records = isPromise(found) ? await found : found;
    return records.map((r) => this.decode(r));
  }

  async listThreads(opts?: ListThreadsOptions): Promise<ThreadInfo[]> {
    assertListThreadsOptions(opts);
    if (!this.#isSetUp) await this.setup();
    return this.run('listThreads', undefined, () => this.readThreads(opts ?? {}));
  }

  async deleteThread(thread: string): Promise<number> {
    assertThreadId(thread);
    if (!this.#isSetUp) await this.setup();
    const removed = await this.run('deleteThread', thread, () => this.removeThread(thread));
    this.#memos?.delete(thread);
    return removed;
  }

  async prune(thread: string, bounds: PruneBounds): Promise<number> {
    assertThreadId(thread);
    const normalized = normalizePruneBounds(bounds);
    if (!this.#isSetUp) await this.setup();
    return this.run('prune', thread, () => this.removeCheckpoints(thread, normalized));
  }

  async putWrites(thread: string, step: number, writes: readonly PendingWrite[]): Promise<void> {
    assertThreadId(thread);
    assertStep(step);
    assertWrites(writes);
    if (writes.length === 0) return;
    const records = encodeWrites(thread, step, writes, this.serializer, this.backend);
    if (!this.#isSetUp) await this.setup();
    const done = this.run('putWrites', thread, () => this.writeWrites(thread, step, records));
    if (isPromise(done)) await done;
  }

  async getWrites(thread: string, step: number): Promise<PendingWrite[]> {
    assertThreadId(thread);
    assertStep(step);
    if (!this.#isSetUp) await this.setup();
    const found = this.run('getWrites', thread, () => this.readWrites(thread, step));
    const records = isPromise(found) ? await found : found;
    const location = () => `${this.locate(thread, step)} writes`;
    return decodeWrites(thread, step, records, this.serializer, location, this.backend);
  }

  async acquireLease(thread: string, request: LeaseRequest): Promise<Lease | undefined> {
    assertLeaseRequest(thread, request);
    if (!this.#isSetUp) await this.setup();
    const record = leaseRecordOf(request);
    const first = await this.run('acquireLease', thread, () => this.writeLease(thread, record, undefined));
    if (first.acquired) return first.lease;
    // The one rule for a dead owner: same host, no such process → its lease counts as expired.
    if (!ownerIsGone(first.holder)) return undefined;
    const second = await this.run('acquireLease', thread, () =>
      this.writeLease(thread, record, first.holder.owner),
    );
    return second.acquired ? second.lease : undefined;
  }

  async renewLease(thread: string, request: LeaseRequest): Promise<boolean> {
    assertLeaseRequest(thread, request);
    if (!this.#isSetUp) await this.setup();
    return this.run('renewLease', thread, () => this.extendLease(thread, request.owner, request.ttlMs));
  }

  async releaseLease(thread: string, owner: string): Promise<void> {
    assertThreadId(thread);
    assertThreadId(owner, 'lease owner');
    if (!this.#isSetUp) await this.setup();
    await this.run('releaseLease', thread, () => this.dropLease(thread, owner));
  }

  async getLease(thread: string): Promise<Lease | undefined> {
    assertThreadId(thread);
    if (!this.#isSetUp) await this.setup();
    const lease = await this.run('getLease', thread, () => this.readLease(thread));
    // The same rule as acquireLease's: a lease whose owner is gone is not live, so nobody waits on it.
    return lease === undefined || ownerIsGone(lease) ? undefined : lease;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#memos?.clear();
    await this.run('close', undefined, () => this.release());
  }

  /** Whether `close()` was called. */
  protected get closed(): boolean {
    return this.#closed;
  }

  private decode(record: CheckpointRecord): Checkpoint {
    const location = () => this.locate(record.thread, record.step);
    return decodeRecord(record, this.serializer, location, this.backend);
  }

  private closedError(): StorageError {
    return new StorageError(`${prefix(this.backend)}the checkpointer is closed`);
  }

  /**
   * Runs a storage operation. Anything it throws or rejects with that is not already a FlowError becomes a
   * `StorageError` with `cause`. A plain (synchronous) result is returned as it is, not wrapped in a promise.
   */
  private run<T>(op: string, thread: string | undefined, fn: () => Awaitable<T>): Awaitable<T> {
    if (this.#closed && op !== 'close') throw this.closedError();
    let result: Awaitable<T>;
    try {
      result = fn();
    } catch (error) {
      throw this.storageError(op, thread, error);
    }
    if (!isPromise(result)) return result;
    return result.then(undefined, (error: unknown) => {
      throw this.storageError(op, thread, error);
    });
  }

  private storageError(op: string, thread: string | undefined, error: unknown): unknown {
    if (isFlowError(error)) return error;
    const where = thread === undefined ? '' : ` on thread ${JSON.stringify(thread)}`;
    const detail = error instanceof Error ? error.message : String(error);
    const hint = this.hintFor(error);
    return new StorageError(
      `${prefix(this.backend)}${op} failed${where}: ${detail}${hint ? ` (${hint})` : ''}`,
      {
        cause: error,
      },
    );
  }
}
