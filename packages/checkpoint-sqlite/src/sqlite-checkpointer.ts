import {
  BaseCheckpointer,
  CheckpointConflict,
  type CheckpointRecord,
  type ChunkRecord,
  type Lease,
  type LeaseRecord,
  type LeaseResult,
  type ListOptions,
  type ListThreadsOptions,
  MAX_STEP,
  MissingChunkError,
  type NormalizedPruneBounds,
  type ThreadInfo,
  type WriteRecord,
} from '@flow/core';
import { configure } from './connection.js';
import type { SqliteDatabase } from './driver.js';
import { GroupCommit } from './group-commit.js';
import {
  type ConnectionSettings,
  connectionSettings,
  type SqliteCheckpointerOptions,
  targetOf,
} from './options.js';
import { openPrivateFile } from './private-file.js';
import {
  type CheckpointRow,
  type ChunkRow,
  hasRefs,
  rowToRecord,
  rowToThreadInfo,
  type ThreadRow,
  type WriteValues,
  writeValues,
} from './rows.js';
import { migrate } from './schema.js';
import { prepareStatements, type Statements } from './statements.js';

/** A `flow_leases` row as `leaseOf` selects it. */
interface StoredLease {
  owner: string;
  host: string;
  pid: number;
  expiresMs: number;
}

function toLease(thread: string, row: StoredLease): Lease {
  return {
    thread,
    owner: row.owner,
    host: row.host,
    pid: row.pid,
    expiresAt: new Date(row.expiresMs).toISOString(),
  };
}

/** Index of `refs` in a `CheckpointRow`. */
const REFS = 10;

function toChunk([id, data]: ChunkRow): ChunkRecord {
  return { id, data };
}

/**
 * A checkpointer on SQLite through better-sqlite3: WAL, `BEGIN IMMEDIATE` transactions, puts of concurrent runs
 * grouped into one commit (each still atomic and conditional on its own), statements prepared once, and a thread summary table so `listThreads` never reads state. Several processes may share
 * one file; conditional puts stay exactly-once across them.
 *
 * @example
 * const checkpointer = new SqliteCheckpointer('flow.db');
 * await checkpointer.put(new Checkpoint({ thread: 'order-42', step: 0, state: { n: 0 }, next: ['work'] }));
 * const latest = await checkpointer.get('order-42');
 * await checkpointer.close();
 */
export class SqliteCheckpointer extends BaseCheckpointer {
  protected readonly backend = 'sqlite';
  /** Stores chunks of linear states with their records (see the README). */
  protected override readonly storesChunks = true;
  readonly #path: string | undefined;
  readonly #settings: ConnectionSettings;
  #db: SqliteDatabase | undefined;
  #statements: Statements | undefined;
  #group: GroupCommit | undefined;
  /** A put on its own: one statement when it can be (see `initialize`). */
  #put:
    | ((values: WriteValues, ifRevision: number | undefined, record: CheckpointRecord) => number)
    | undefined;
  #remove: ((thread: string) => number) | undefined;
  #writeWith:
    | ((
        values: WriteValues,
        ifRevision: number | undefined,
        record: CheckpointRecord,
        writes: WriteRecord[],
      ) => number)
    | undefined;
  /** Runs `read` in one read transaction: a record and its chunks come from one snapshot. */
  #snapshot: (<T>(read: () => T) => T) | undefined;
  #addWrites: ((thread: string, step: number, writes: WriteRecord[]) => void) | undefined;
  #prune:
    | ((params: { thread: string; beforeStep: number | null; olderThan: number | null }) => number)
    | undefined;
  #lease: ((thread: string, lease: LeaseRecord, replace: string | undefined) => LeaseResult) | undefined;

  /**
   * @param pathOrDb A file path (created when missing; `':memory:'` for a private in-memory database), or an
   *   open better-sqlite3 `Database`, which stays yours: `close()` leaves it open. @default 'flow.db'
   * @param options `synchronous`, `busyTimeout`, `serializer`.
   */
  constructor(pathOrDb: string | SqliteDatabase = 'flow.db', options?: SqliteCheckpointerOptions) {
    super(options);
    const target = targetOf(pathOrDb);
    this.#path = target.path;
    this.#db = target.db;
    this.#settings = connectionSettings(options);
  }

  /** The database file (`':memory:'` for an in-memory one). */
  get filename(): string {
    // The constructor sets one of the two.
    return this.#path ?? this.#db!.name;
  }

  protected override locate(thread: string, step: number): string {
    return `${this.filename} thread ${JSON.stringify(thread)} step ${step}`;
  }

  readonly #locate = (thread: string, step: number): string => this.locate(thread, step);

  protected async initialize(): Promise<void> {
    // The connection is opened here, not in the constructor, so a bad path rejects as a StorageError.
    this.#db ??= openPrivateFile(this.#path!);
    const db = this.#db;
    configure(db, this.#settings);
    await migrate(db);
    const s = prepareStatements(db);
    this.#statements = s;
    this.#group = new GroupCommit(db);
    /** The stored revision after the put, or undefined on a conflict (nothing written). */
    const putRow = (values: WriteValues, ifRevision: number | undefined): number | undefined => {
      if (ifRevision === undefined) {
        // A new step (the usual put) is the insert alone; a stored one is then bumped by the upsert. `all`, not
        // `get`: outside a transaction the statement commits when it runs to its end, and `get` stops at the
        // RETURNING row, so the driver resets it and drops a failed commit's error (a full disk): the put
        // would resolve with a revision nothing stored.
        return s.insertNew.run(values).changes === 1 ? 1 : (s.upsert.all(values)[0] as number);
      }
      if (ifRevision === 0) return s.insertNew.run(values).changes === 1 ? 1 : undefined;
      return s.updateAt.run(values, ifRevision).changes === 1 ? ifRevision + 1 : undefined;
    };
    const put = (values: WriteValues, ifRevision: number | undefined, record: CheckpointRecord) => {
      const revision = putRow(values, ifRevision);
      if (revision === undefined) {
        const [thread, step] = values;
        const stored = s.revision.get(thread, step) as number | undefined;
        throw new CheckpointConflict({
          thread,
          step,
          expected: ifRevision ?? 0,
          actual: stored ?? 0,
          backend: this.backend,
        });
      }
      storeChunks(record);
      return revision;
    };
    // In the put's own transaction (a savepoint inside a group), so a throw here stores nothing of the put.
    const storeChunks = (record: CheckpointRecord) => {
      if (record.refs === undefined || record.refs.length === 0) return;
      const added = new Set<string>();
      for (const chunk of record.chunks ?? []) {
        s.addChunk.run(record.thread, chunk.id, chunk.data);
        added.add(chunk.id);
      }
      const others = [...new Set(record.refs)].filter((id) => !added.has(id));
      if (others.length === 0) return;
      const missing = s.missingChunk.get(JSON.stringify(others), record.thread) as [string] | undefined;
      if (missing !== undefined) {
        throw new MissingChunkError({ thread: record.thread, id: missing[0], backend: this.backend });
      }
    };
    const addWrites = (thread: string, step: number, writes: WriteRecord[]) => {
      for (const w of writes) s.addWrite.run({ thread, step, node: w.node, key: w.key, value: w.value });
    };
    const putInTransaction = db.transaction(put).immediate;
    // A whole-state put is one statement (the triggers keep the summary), which SQLite commits on its own, or
    // which joins the group's transaction: no BEGIN/COMMIT of its own, no savepoint. A conflict is answered by
    // the put again in a transaction, so `actual` is read in the snapshot that conflicted. A put with chunks
    // stores them in its own transaction (a savepoint inside a group), so a throw there stores nothing.
    this.#put = (values, ifRevision, record) =>
      hasRefs(record)
        ? putInTransaction(values, ifRevision, record)
        : (putRow(values, ifRevision) ?? putInTransaction(values, ifRevision, record));
    // One transaction: a conflict throws before any write is added, and rolls back nothing else.
    this.#writeWith = db.transaction(
      (
        values: WriteValues,
        ifRevision: number | undefined,
        record: CheckpointRecord,
        writes: WriteRecord[],
      ) => {
        const revision = put(values, ifRevision, record);
        addWrites(record.thread, record.step, writes);
        return revision;
      },
    ).immediate;
    this.#addWrites = db.transaction(addWrites).immediate;
    const snapshot = db.transaction((read: () => unknown) => read()).deferred;
    this.#snapshot = <T>(read: () => T) => snapshot(read) as T;
    this.#remove = db.transaction((thread: string) => {
      const removed = s.deleteCheckpoints.run({ thread }).changes;
      s.deleteThread.run({ thread });
      s.deleteWrites.run({ thread });
      s.deleteLease.run({ thread });
      s.deleteChunks.run({ thread });
      return removed;
    }).immediate;
    this.#prune = db.transaction(
      (params: { thread: string; beforeStep: number | null; olderThan: number | null }) => {
        s.pruneWrites.run(params);
        const removed = s.prune.run(params).changes;
        // Also when no checkpoint went: an overwritten step (a rekey) leaves the chunks of its old state behind.
        s.pruneChunks.run({ thread: params.thread });
        return removed;
      },
    ).immediate;
    this.#lease = db.transaction(
      (thread: string, lease: LeaseRecord, replace: string | undefined): LeaseResult => {
        const now = Date.now();
        const held = s.leaseOf.get({ thread }) as StoredLease | undefined;
        if (
          held !== undefined &&
          // Stryker disable next-line EqualityOperator: the protocol leaves open the one millisecond at expiresAt
          held.expiresMs > now &&
          held.owner !== lease.owner &&
          held.owner !== replace
        ) {
          return { acquired: false, holder: toLease(thread, held) };
        }
        const stored = { owner: lease.owner, host: lease.host, pid: lease.pid, expiresMs: now + lease.ttlMs };
        s.putLease.run({ thread, ...stored });
        return { acquired: true, lease: toLease(thread, stored) };
      },
    ).immediate;
  }

  // Puts (and a node's writes) join a group commit: concurrent runs share one transaction and one fsync.
  protected writeRecord(record: CheckpointRecord, ifRevision: number | undefined): Promise<number> {
    const values = writeValues(record);
    return this.#group!.add(() => this.#put!(values, ifRevision, record));
  }

  protected override writeRecordWithWrites(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): Promise<number> {
    const values = writeValues(record);
    return this.#group!.add(() => this.#writeWith!(values, ifRevision, record, writes));
  }

  protected override writeWrites(thread: string, step: number, writes: WriteRecord[]): Promise<void> {
    return this.#group!.add(() => this.#addWrites!(thread, step, writes));
  }

  // Every other operation commits the queued writes first, so it sees them in the order they were issued.
  // better-sqlite3 is synchronous, so these return plain values: no promise, no tick.
  protected override readWrites(thread: string, step: number): WriteRecord[] {
    this.#group!.flush();
    return this.#statements!.writesAt.all({ thread, step }) as WriteRecord[];
  }

  protected override writeLease(
    thread: string,
    lease: LeaseRecord,
    replace: string | undefined,
  ): LeaseResult {
    this.#group!.flush();
    return this.#lease!(thread, lease, replace);
  }

  protected override extendLease(thread: string, owner: string, ttlMs: number): boolean {
    this.#group!.flush();
    const now = Date.now();
    return this.#statements!.extendLease.run({ thread, owner, now, expiresMs: now + ttlMs }).changes === 1;
  }

  protected override dropLease(thread: string, owner: string): void {
    this.#group!.flush();
    this.#statements!.dropLease.run({ thread, owner });
  }

  protected override readLease(thread: string): Lease | undefined {
    this.#group!.flush();
    const held = this.#statements!.leaseOf.get({ thread }) as StoredLease | undefined;
    // Stryker disable next-line EqualityOperator: the protocol leaves open the one millisecond at expiresAt
    return held !== undefined && held.expiresMs > Date.now() ? toLease(thread, held) : undefined;
  }

  protected readRecord(thread: string, step: number | undefined): CheckpointRecord | undefined {
    this.#group!.flush();
    const s = this.#statements!;
    const read = () =>
      (step === undefined ? s.latest.get(thread) : s.at.get(thread, step)) as CheckpointRow | undefined;
    const row = read();
    if (row === undefined || row[REFS] === null) return row && rowToRecord(thread, row, this.#locate);
    // A record with refs is read again with its chunks in one snapshot, so a thread deleted by another
    // process in between never pairs a record with missing chunks; a whole-state read pays no transaction.
    return this.#snapshot!(() => {
      const again = read();
      if (again === undefined || again[REFS] === null)
        return again && rowToRecord(thread, again, this.#locate);
      const chunks = (s.chunksOf.all(thread, again[REFS]) as ChunkRow[]).map(toChunk);
      return rowToRecord(thread, again, this.#locate, chunks);
    });
  }

  protected readRecords(thread: string, opts: ListOptions): CheckpointRecord[] {
    this.#group!.flush();
    const s = this.#statements!;
    const bounds = [thread, opts.beforeStep ?? MAX_STEP + 1, opts.limit ?? -1] as const;
    const read = () => s.list.all(...bounds) as CheckpointRow[];
    const rows = read();
    const linear = (r: CheckpointRow[]) => r.some((row) => row[REFS] !== null);
    if (!linear(rows)) return rows.map((row) => rowToRecord(thread, row, this.#locate));
    // As in readRecord: records with refs are read again, with their chunks, in one read transaction.
    return this.#snapshot!(() => {
      const again = read();
      // Every record gets the chunks of the whole list: one query, each chunk read once.
      const chunks = linear(again)
        ? (s.chunksOfList.all(thread, ...bounds) as ChunkRow[]).map(toChunk)
        : undefined;
      return again.map((row) => rowToRecord(thread, row, this.#locate, chunks));
    });
  }

  protected readThreads(opts: ListThreadsOptions): ThreadInfo[] {
    this.#group!.flush();
    // Every thread id is non-empty, so `> ''` is "from the start".
    const rows = this.#statements!.threads[opts.status ?? 'any'].all(
      opts.after ?? '',
      opts.limit ?? -1,
    ) as ThreadRow[];
    return rows.map(rowToThreadInfo);
  }

  protected removeThread(thread: string): number {
    this.#group!.flush();
    return this.#remove!(thread);
  }

  protected removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): number {
    this.#group!.flush();
    return this.#prune!({
      thread,
      beforeStep: bounds.beforeStep ?? null,
      // Stryker disable next-line ConditionalExpression: Date.parse(undefined) is NaN, which SQLite binds as NULL
      olderThan: bounds.olderThan === undefined ? null : Date.parse(bounds.olderThan),
    });
  }

  protected async release(): Promise<void> {
    // Writes still queued are committed (or rejected) before the connection goes.
    this.#group?.flush();
    this.#group = undefined;
    this.#statements = undefined;
    this.#put = undefined;
    this.#remove = undefined;
    this.#writeWith = undefined;
    this.#snapshot = undefined;
    this.#addWrites = undefined;
    this.#prune = undefined;
    this.#lease = undefined;
    // A Database passed in stays the caller's to close.
    if (this.#path !== undefined && this.#db?.open) this.#db.close();
  }
}
