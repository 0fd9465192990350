import { rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  BaseCheckpointer,
  type CheckpointRecord,
  flowPrefix,
  InvalidArgumentError,
  jsonSerializer,
  type Lease,
  type LeaseRecord,
  type LeaseResult,
  type ListOptions,
  type ListThreadsOptions,
  type NormalizedPruneBounds,
  type ThreadInfo,
  type WriteRecord,
} from '@flow/core';
import { chunksDirOf } from './chunk-file.js';
import type { FileLockOptions } from './file-lock.js';
import { Layout, TRASH_PREFIX, uniqueName } from './layout.js';
import { dropLeaseFile, extendLeaseFile, readLeaseFile, writeLeaseFile } from './lease-file.js';
import { type FileCheckpointerOptions, lockTimings } from './options.js';
import { ensureRoot, mkdirPrivate, syncDir } from './private-fs.js';
import { pruneSteps } from './prune-steps.js';
import { readStep, readSteps } from './read-step.js';
import { readThreads } from './read-threads.js';
import { entriesOf, listSteps, repairSummary, sweepTemps } from './thread-dir.js';
import { withThreadLock } from './thread-lock.js';
import {
  createWriteFiles,
  ensureStepWritesDir,
  publishPending,
  readWriteFiles,
  settleStages,
} from './write-files.js';
import { writeStep } from './write-step.js';

/** How many files one call reads at once. */
const READ_CONCURRENCY = 16;

/**
 * A checkpointer that keeps one JSON file per step under a directory: written atomically (temp file,
 * fsync, rename, fsync of the directory), private (`0o700` directories, `0o600` files whatever the umask),
 * with thread ids encoded so none can escape the directory, and conditional puts that stay exactly-once
 * across processes. See the README for the layout on disk.
 *
 * @example
 * const checkpointer = new FileCheckpointer('./.flow');
 * await checkpointer.put(new Checkpoint({ thread: 'order-42', step: 0, state: { n: 0 }, next: ['work'] }));
 * const latest = await checkpointer.get('order-42');
 */
export class FileCheckpointer extends BaseCheckpointer {
  protected readonly backend = 'file';
  /** Stores chunks of linear states with their records (see the README). */
  protected override readonly storesChunks = true;
  /** The absolute root directory this checkpointer stores into. */
  readonly dir: string;
  readonly #layout: Layout;
  readonly #lock: FileLockOptions;
  /** The default serializer emits JSON, which goes into the file as is; other text is wrapped in a string. */
  readonly #rawJson: boolean;
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(dir: string, options: FileCheckpointerOptions = {}) {
    if (typeof dir !== 'string' || dir === '' || dir.includes('\u0000')) {
      throw new InvalidArgumentError(`${flowPrefix('file')}dir must be a non-empty path string`);
    }
    const lock = lockTimings(options);
    super(options);
    this.dir = resolve(dir);
    this.#layout = new Layout(this.dir);
    this.#lock = lock;
    this.#rawJson = this.serializer === jsonSerializer;
  }

  protected override locate(thread: string, step: number): string {
    return this.#layout.stepFile(thread, step);
  }

  protected initialize(): Promise<void> {
    return this.#track(async () => {
      await ensureRoot(this.dir);
      if (!(await stat(this.dir)).isDirectory()) throw new Error(`${this.dir} is not a directory`);
      const madeThreads = await mkdirPrivate(this.#layout.threads);
      const madeLocks = await mkdirPrivate(this.#layout.locks);
      if (madeThreads || madeLocks) await syncDir(this.dir);
      await this.#emptyTrash();
    });
  }

  protected writeRecord(record: CheckpointRecord, ifRevision: number | undefined): Promise<number> {
    return this.#locked(record.thread, () =>
      writeStep(this.#layout.threadDir(record.thread), record, ifRevision, this.#rawJson),
    );
  }

  protected override writeRecordWithWrites(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): Promise<number> {
    return this.#locked(record.thread, () =>
      writeStep(this.#layout.threadDir(record.thread), record, ifRevision, this.#rawJson, writes),
    );
  }

  protected override writeWrites(thread: string, step: number, writes: WriteRecord[]): Promise<void> {
    if (writes.length === 0) return Promise.resolve();
    return this.#locked(thread, async () => {
      const dir = await this.#threadDirFor(thread);
      // Values a put staged came first: publish them before adding any.
      await publishPending(dir, thread, step);
      await createWriteFiles(await ensureStepWritesDir(dir, step), writes);
    });
  }

  protected override readWrites(thread: string, step: number): Promise<WriteRecord[]> {
    return this.#track(() => readWriteFiles(this.#layout.threadDir(thread), thread, step));
  }

  protected override writeLease(
    thread: string,
    lease: LeaseRecord,
    replace: string | undefined,
  ): Promise<LeaseResult> {
    return this.#locked(thread, async () =>
      writeLeaseFile(await this.#threadDirFor(thread), thread, lease, replace),
    );
  }

  protected override extendLease(thread: string, owner: string, ttlMs: number): Promise<boolean> {
    return this.#locked(thread, () => extendLeaseFile(this.#layout.threadDir(thread), thread, owner, ttlMs));
  }

  protected override dropLease(thread: string, owner: string): Promise<void> {
    return this.#locked(thread, () => dropLeaseFile(this.#layout.threadDir(thread), thread, owner));
  }

  protected override readLease(thread: string): Promise<Lease | undefined> {
    return this.#track(() => readLeaseFile(this.#layout.threadDir(thread), thread));
  }

  protected readRecord(thread: string, step: number | undefined): Promise<CheckpointRecord | undefined> {
    return this.#track(async () => {
      const dir = this.#layout.threadDir(thread);
      if (step !== undefined) return readStep(dir, thread, step, READ_CONCURRENCY);
      // The step files, not the summary, say which is the latest: they are what a put commits first.
      for (const s of await listSteps(dir)) {
        const record = await readStep(dir, thread, s, READ_CONCURRENCY);
        if (record !== undefined) return record; // undefined: deleted meanwhile, try the next
      }
      return undefined;
    });
  }

  protected readRecords(thread: string, opts: ListOptions): Promise<CheckpointRecord[]> {
    return this.#track(async () => {
      const dir = this.#layout.threadDir(thread);
      let steps = await listSteps(dir);
      const { beforeStep, limit } = opts;
      if (beforeStep !== undefined) steps = steps.filter((s) => s < beforeStep);
      if (limit !== undefined) steps = steps.slice(0, limit);
      return readSteps(dir, thread, steps, READ_CONCURRENCY);
    });
  }

  protected readThreads(opts: ListThreadsOptions): Promise<ThreadInfo[]> {
    return this.#track(() => readThreads(this.#layout.threads, this.#layout.locks, opts, READ_CONCURRENCY));
  }

  protected removeThread(thread: string): Promise<number> {
    return this.#track(async () => {
      const dir = this.#layout.threadDir(thread);
      const moved = await this.#locked(thread, async () => {
        const count = (await listSteps(dir)).length;
        if (count === 0) {
          await rm(dir, { recursive: true, force: true });
          return { count, trash: undefined };
        }
        // One rename takes the whole thread out of sight at once; the files go after the lock is freed.
        const trash = join(this.#layout.threads, uniqueName(TRASH_PREFIX));
        await rename(dir, trash);
        await syncDir(this.#layout.threads);
        return { count, trash };
      });
      // Already out of sight; should removing fail, the next setup() empties the trash.
      if (moved.trash !== undefined) await rm(moved.trash, { recursive: true, force: true }).catch(() => {});
      return moved.count;
    });
  }

  protected removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): Promise<number> {
    return this.#locked(thread, () =>
      pruneSteps(this.#layout.threadDir(thread), thread, bounds, READ_CONCURRENCY),
    );
  }

  protected async release(): Promise<void> {
    // Nothing stays open between calls; wait for this instance's calls in flight so their locks are freed.
    await Promise.allSettled([...this.#inflight]);
  }

  /** Runs `fn` under the thread lock, first tidying up after a crashed holder if its lock was broken. */
  #locked<T>(thread: string, fn: () => Promise<T>): Promise<T> {
    return this.#track(() =>
      withThreadLock(this.#layout.lockFile(thread), this.#lock, async (brokeStale) => {
        if (brokeStale) {
          const dir = this.#layout.threadDir(thread);
          const entries = await entriesOf(dir);
          await sweepTemps(dir, entries);
          await sweepTemps(chunksDirOf(dir), await entriesOf(chunksDirOf(dir)));
          await settleStages(dir, thread, entries);
          await repairSummary(dir, thread, entries);
        }
        return fn();
      }),
    );
  }

  /** The thread's directory, created (`0o700`, durably) if missing: a write or lease may come first. */
  async #threadDirFor(thread: string): Promise<string> {
    const dir = this.#layout.threadDir(thread);
    if (await mkdirPrivate(dir)) await syncDir(this.#layout.threads);
    return dir;
  }

  /** Runs an operation and remembers it until it settles, so `close()` can wait for it. */
  #track<T>(fn: () => Promise<T>): Promise<T> {
    const p = fn();
    this.#inflight.add(p);
    const forget = () => this.#inflight.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** Removes thread directories a crashed `deleteThread` renamed away but did not finish removing. */
  async #emptyTrash(): Promise<void> {
    for (const name of await entriesOf(this.#layout.threads)) {
      if (!name.startsWith(TRASH_PREFIX)) continue;
      await rm(join(this.#layout.threads, name), { recursive: true, force: true }).catch(() => {});
    }
  }
}
