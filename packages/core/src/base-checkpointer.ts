import { Checkpoint, type ThreadInfo } from './checkpoint.js';
import type { Checkpointer, PutOptions } from './checkpointer.js';
import { isFlowError, prefix, StorageError } from './errors.js';
import { type CheckpointRecord, decodeRecord, encodeRecord } from './record.js';
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

/** Options every backend built on `BaseCheckpointer` accepts. */
export interface BaseCheckpointerOptions {
  /** How state and interrupt payloads become text. @default jsonSerializer */
  serializer?: Serializer;
}

/**
 * The shared half of a backend: argument validation, lazy `setup()`, serialization, and wrapping driver
 * failures into `StorageError`. A backend implements only the storage operations below, on records whose
 * arguments are already checked. See the conformance kit's README for a walk-through.
 */
export abstract class BaseCheckpointer implements Checkpointer {
  /** Short backend name used in error messages: `[flow:NAME] ...`. */
  protected abstract readonly backend: string;
  protected readonly serializer: Serializer;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: BaseCheckpointerOptions = {}) {
    this.serializer = options.serializer ?? jsonSerializer;
  }

  /** Creates or migrates storage (idempotent, safe across processes). */
  protected abstract initialize(): Promise<void>;
  /**
   * Stores `record`. With `ifRevision`, writes only when the stored revision equals it (0: nothing stored)
   * and otherwise throws `CheckpointConflict` without changing anything. Resolves with the new revision.
   */
  protected abstract writeRecord(record: CheckpointRecord, ifRevision: number | undefined): Promise<number>;
  /** The record at `step`, or the highest step when `step` is undefined. */
  protected abstract readRecord(
    thread: string,
    step: number | undefined,
  ): Promise<CheckpointRecord | undefined>;
  /** Records newest step first, with `step < beforeStep` when given, at most `limit` when given. */
  protected abstract readRecords(thread: string, opts: ListOptions): Promise<CheckpointRecord[]>;
  /** Thread summaries in code-point order of id, after `after`, filtered by `status`, at most `limit`. */
  protected abstract readThreads(opts: ListThreadsOptions): Promise<ThreadInfo[]>;
  /** Removes a whole thread; resolves with the number of checkpoints removed. */
  protected abstract removeThread(thread: string): Promise<number>;
  /** Removes checkpoints meeting every given bound, never the thread's latest; resolves with the count. */
  protected abstract removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): Promise<number>;
  /** Releases connections and handles this instance opened. */
  protected abstract release(): Promise<void>;

  /** Where a record lives, for `CorruptCheckpointError` messages. Backends override with a path or key. */
  protected locate(thread: string, step: number): string {
    return `thread ${JSON.stringify(thread)} step ${step}`;
  }

  setup(): Promise<void> {
    if (this.#closed) return Promise.reject(this.closedError());
    if (this.#ready === undefined) {
      this.#ready = this.run('setup', undefined, () => this.initialize());
      // A failed setup (say, the server was down) is tried again by the next call.
      this.#ready.catch(() => {
        this.#ready = undefined;
      });
    }
    return this.#ready;
  }

  async put(cp: Checkpoint, opts?: PutOptions): Promise<Checkpoint> {
    const checked = cp instanceof Checkpoint ? cp : new Checkpoint(cp);
    const ifRevision = opts?.ifRevision;
    assertIfRevision(ifRevision);
    const record = encodeRecord(checked, this.serializer, this.backend);
    await this.setup();
    const revision = await this.run('put', checked.thread, () => this.writeRecord(record, ifRevision));
    return checked.with({ ts: record.ts, revision });
  }

  async get(thread: string, step?: number): Promise<Checkpoint | undefined> {
    assertThreadId(thread);
    if (step !== undefined) assertStep(step);
    await this.setup();
    const record = await this.run('get', thread, () => this.readRecord(thread, step));
    return record && this.decode(record);
  }

  async list(thread: string, opts?: ListOptions): Promise<Checkpoint[]> {
    assertThreadId(thread);
    assertListOptions(opts);
    await this.setup();
    const records = await this.run('list', thread, () => this.readRecords(thread, opts ?? {}));
    return records.map((r) => this.decode(r));
  }

  async listThreads(opts?: ListThreadsOptions): Promise<ThreadInfo[]> {
    assertListThreadsOptions(opts);
    await this.setup();
    return this.run('listThreads', undefined, () => this.readThreads(opts ?? {}));
  }

  async deleteThread(thread: string): Promise<number> {
    assertThreadId(thread);
    await this.setup();
    return this.run('deleteThread', thread, () => this.removeThread(thread));
  }

  async prune(thread: string, bounds: PruneBounds): Promise<number> {
    assertThreadId(thread);
    const normalized = normalizePruneBounds(bounds);
    await this.setup();
    return this.run('prune', thread, () => this.removeCheckpoints(thread, normalized));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.run('close', undefined, () => this.release());
  }

  /** Whether `close()` was called. */
  protected get closed(): boolean {
    return this.#closed;
  }

  private decode(record: CheckpointRecord): Checkpoint {
    return decodeRecord(record, this.serializer, this.locate(record.thread, record.step), this.backend);
  }

  private closedError(): StorageError {
    return new StorageError(`${prefix(this.backend)}the checkpointer is closed`);
  }

  /** Runs a storage operation; anything that is not already a FlowError becomes a `StorageError` with `cause`. */
  private async run<T>(op: string, thread: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (this.#closed && op !== 'close') throw this.closedError();
    try {
      return await fn();
    } catch (error) {
      if (isFlowError(error)) throw error;
      const where = thread === undefined ? '' : ` on thread ${JSON.stringify(thread)}`;
      const detail = error instanceof Error ? error.message : String(error);
      throw new StorageError(`${prefix(this.backend)}${op} failed${where}: ${detail}`, { cause: error });
    }
  }
}
