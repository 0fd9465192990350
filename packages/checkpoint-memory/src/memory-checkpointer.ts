import {
  BaseCheckpointer,
  type BaseCheckpointerOptions,
  CheckpointConflict,
  type CheckpointRecord,
  compareThreadIds,
  type Lease,
  type LeaseRecord,
  type LeaseResult,
  type ListOptions,
  type ListThreadsOptions,
  MissingChunkError,
  type NormalizedPruneBounds,
  statusOf,
  type ThreadInfo,
  threadInfoOf,
  type WriteRecord,
} from '@flow/core';
import { MemoryLeases } from './memory-leases.js';
import { MemoryWrites } from './memory-writes.js';

/** Options of `new MemoryCheckpointer(options)`. */
export type MemoryCheckpointerOptions = BaseCheckpointerOptions;

/**
 * One thread: its records by step (without their chunks), the record with the highest step (the thread
 * summary), and the chunks its records reference, by id.
 */
interface ThreadEntry {
  readonly steps: Map<number, CheckpointRecord>;
  latest: CheckpointRecord;
  readonly chunks: Map<string, string>;
}

/**
 * An in-process checkpointer for tests and scripts. It keeps serialized records (not the caller's objects),
 * so a stored checkpoint is a snapshot exactly as in the durable backends. Everything lives in this instance
 * and is dropped by `close()`: nothing survives the process, and two instances never share data.
 *
 * @example
 * import { Checkpoint } from '@flow/core';
 * import { MemoryCheckpointer } from '@flow/checkpoint-memory';
 *
 * const checkpointer = new MemoryCheckpointer();
 * await checkpointer.put(new Checkpoint({ thread: 'order-42', step: 0, state: { n: 0 }, next: ['work'] }));
 * (await checkpointer.get('order-42'))?.state; // { n: 0 }
 */
export class MemoryCheckpointer extends BaseCheckpointer {
  protected readonly backend = 'memory';
  protected override readonly storesChunks = true;
  readonly #threads = new Map<string, ThreadEntry>();
  /** Thread ids in code-point order, rebuilt lazily after a thread is added or removed. */
  #sorted: string[] | undefined;
  readonly #writes = new MemoryWrites();
  readonly #leases = new MemoryLeases();

  constructor(options: MemoryCheckpointerOptions = {}) {
    super(options);
  }

  protected async initialize(): Promise<void> {}

  /** How many chunks (shared parts of states) are stored for `thread`: for tests of their clean-up. */
  chunkCount(thread: string): number {
    return this.#threads.get(thread)?.chunks.size ?? 0;
  }

  // Synchronous, like every storage operation here: each write is one step, so concurrent puts cannot
  // interleave, and a plain return value costs no promise (see `Awaitable` in @flow/core).
  protected writeRecord(record: CheckpointRecord, ifRevision: number | undefined): number {
    const entry = this.#threads.get(record.thread);
    const actual = entry?.steps.get(record.step)?.revision ?? 0;
    if (ifRevision !== undefined && ifRevision !== actual) {
      throw new CheckpointConflict({
        thread: record.thread,
        step: record.step,
        expected: ifRevision,
        actual,
        backend: this.backend,
      });
    }
    const { chunks, ...rest } = record;
    const stored: CheckpointRecord = { ...rest, revision: actual + 1 };
    // Every ref must be stored already or come with this put; checked before anything changes.
    for (const id of record.refs ?? []) {
      if (entry?.chunks.has(id) !== true && chunks?.some((c) => c.id === id) !== true) {
        throw new MissingChunkError({ thread: record.thread, id, backend: this.backend });
      }
    }
    if (entry === undefined) {
      const threadChunks = new Map<string, string>();
      for (const c of chunks ?? []) if (!threadChunks.has(c.id)) threadChunks.set(c.id, c.data);
      this.#threads.set(record.thread, {
        steps: new Map([[record.step, stored]]),
        latest: stored,
        chunks: threadChunks,
      });
      this.#sorted = undefined;
    } else {
      for (const c of chunks ?? []) if (!entry.chunks.has(c.id)) entry.chunks.set(c.id, c.data);
      entry.steps.set(record.step, stored);
      if (record.step >= entry.latest.step) entry.latest = stored;
    }
    return stored.revision;
  }

  protected override writeRecordWithWrites(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): number {
    // One synchronous step: a conflict throws before any write is stored.
    const revision = this.writeRecord(record, ifRevision);
    this.#writes.add(record.thread, record.step, writes);
    return revision;
  }

  protected override writeWrites(thread: string, step: number, writes: WriteRecord[]): void {
    this.#writes.add(thread, step, writes);
  }

  protected override readWrites(thread: string, step: number): WriteRecord[] {
    return this.#writes.read(thread, step);
  }

  protected override writeLease(
    thread: string,
    lease: LeaseRecord,
    replace: string | undefined,
  ): LeaseResult {
    return this.#leases.write(thread, lease, replace);
  }

  protected override extendLease(thread: string, owner: string, ttlMs: number): boolean {
    return this.#leases.extend(thread, owner, ttlMs);
  }

  protected override dropLease(thread: string, owner: string): void {
    this.#leases.drop(thread, owner);
  }

  protected override readLease(thread: string): Lease | undefined {
    return this.#leases.read(thread);
  }

  protected readRecord(thread: string, step: number | undefined): CheckpointRecord | undefined {
    const entry = this.#threads.get(thread);
    if (entry === undefined) return undefined;
    return withChunks(step === undefined ? entry.latest : entry.steps.get(step), entry.chunks);
  }

  protected readRecords(thread: string, opts: ListOptions): CheckpointRecord[] {
    const entry = this.#threads.get(thread);
    if (entry === undefined) return [];
    const { beforeStep, limit } = opts;
    const records = [...entry.steps.values()]
      .filter((r) => beforeStep === undefined || r.step < beforeStep)
      .sort((a, b) => b.step - a.step);
    // Stryker disable next-line ConditionalExpression: slice(0, undefined) is the whole array too
    const page = limit === undefined ? records : records.slice(0, limit);
    return page.map((r) => withChunks(r, entry.chunks)!);
  }

  protected readThreads(opts: ListThreadsOptions): ThreadInfo[] {
    const ids = this.sortedIds();
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    const out: ThreadInfo[] = [];
    for (let i = opts.after === undefined ? 0 : firstAfter(ids, opts.after); i < ids.length; i++) {
      if (out.length >= limit) break;
      const latest = this.#threads.get(ids[i]!)!.latest;
      if (opts.status === undefined || statusOf(latest) === opts.status) out.push(threadInfoOf(latest));
    }
    return out;
  }

  protected removeThread(thread: string): number {
    this.#writes.deleteThread(thread);
    this.#leases.delete(thread);
    const entry = this.#threads.get(thread);
    if (entry === undefined) return 0;
    this.#threads.delete(thread);
    this.#sorted = undefined;
    return entry.steps.size;
  }

  protected removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): number {
    const entry = this.#threads.get(thread);
    if (entry === undefined) return 0;
    const { beforeStep } = bounds;
    // Compare instants: ISO text order breaks for years outside 0000–9999 ('+010000-…', '-000001-…').
    // Stryker disable next-line ConditionalExpression: Date.parse(undefined) is NaN, and no ts is >= NaN
    const olderThan = bounds.olderThan === undefined ? undefined : Date.parse(bounds.olderThan);
    let removed = 0;
    for (const [step, record] of entry.steps) {
      if (record === entry.latest) continue;
      // Stryker disable next-line ConditionalExpression: no step is >= undefined
      if (beforeStep !== undefined && step >= beforeStep) continue;
      // Stryker disable next-line ConditionalExpression: no instant is >= undefined or NaN
      if (olderThan !== undefined && Date.parse(record.ts) >= olderThan) continue;
      entry.steps.delete(step);
      this.#writes.deleteStep(thread, step);
      removed++;
    }
    // Also when no checkpoint went: an overwritten step (a rekey) leaves the chunks of its old state behind.
    dropUnreferenced(entry);
    return removed;
  }

  // Stryker disable next-line BlockStatement: after close() every method rejects, so clearing only frees memory
  protected async release(): Promise<void> {
    this.#threads.clear();
    this.#writes.clear();
    this.#leases.clear();
    this.#sorted = undefined;
  }

  private sortedIds(): string[] {
    this.#sorted ??= [...this.#threads.keys()].sort(compareThreadIds);
    return this.#sorted;
  }
}

/** The record as a read returns it: with the stored chunks of its refs. */
function withChunks(
  record: CheckpointRecord | undefined,
  chunks: ReadonlyMap<string, string>,
): CheckpointRecord | undefined {
  const refs = record?.refs;
  if (refs === undefined || refs.length === 0) return record;
  const found = [];
  for (const id of refs) {
    const data = chunks.get(id);
    if (data !== undefined) found.push({ id, data });
  }
  return { ...record!, chunks: found };
}

/** Removes the chunks no remaining record of the thread references (after a prune). */
function dropUnreferenced(entry: ThreadEntry): void {
  const referenced = new Set<string>();
  for (const record of entry.steps.values()) for (const id of record.refs ?? []) referenced.add(id);
  for (const id of entry.chunks.keys()) if (!referenced.has(id)) entry.chunks.delete(id);
}

/** Index of the first id strictly after `after` in code-point order (binary search over sorted ids). */
function firstAfter(ids: readonly string[], after: string): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareThreadIds(ids[mid]!, after) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
