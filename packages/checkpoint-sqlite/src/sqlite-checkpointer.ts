import {
  BaseCheckpointer,
  CheckpointConflict,
  type CheckpointRecord,
  InvalidArgumentError,
  type ListOptions,
  type ListThreadsOptions,
  MAX_STEP,
  type NormalizedPruneBounds,
  type ThreadInfo,
} from '@flow/core';
import Database from 'better-sqlite3';
import { configure } from './connection.js';
import type { SqliteDatabase } from './driver.js';
import { type ConnectionSettings, connectionSettings, type SqliteCheckpointerOptions } from './options.js';
import { createPrivateFile } from './private-file.js';
import { type CheckpointRow, rowToRecord, rowToThreadInfo, type ThreadRow, writeParams } from './rows.js';
import { migrate } from './schema.js';
import { prepareStatements, type Statements } from './statements.js';

type WriteParams = ReturnType<typeof writeParams>;

function isDatabase(value: unknown): value is SqliteDatabase {
  return (
    typeof value === 'object' && value !== null && typeof (value as SqliteDatabase).prepare === 'function'
  );
}

/**
 * A checkpointer on SQLite through better-sqlite3: WAL, one `BEGIN IMMEDIATE` transaction per write, statements
 * prepared once, and a thread summary table so `listThreads` never reads state. Several processes may share
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
  readonly #path: string | undefined;
  readonly #settings: ConnectionSettings;
  #db: SqliteDatabase | undefined;
  #statements: Statements | undefined;
  #write: ((params: WriteParams, ifRevision: number | undefined) => number) | undefined;
  #remove: ((thread: string) => number) | undefined;

  /**
   * @param pathOrDb A file path (created when missing; `':memory:'` for a private in-memory database), or an
   *   open better-sqlite3 `Database`, which stays yours: `close()` leaves it open. @default 'flow.db'
   * @param options `synchronous`, `busyTimeout`, `serializer`.
   */
  constructor(pathOrDb: string | SqliteDatabase = 'flow.db', options?: SqliteCheckpointerOptions) {
    super(options);
    if (typeof pathOrDb === 'string') {
      this.#path = pathOrDb;
    } else if (isDatabase(pathOrDb)) {
      this.#db = pathOrDb;
    } else {
      throw new InvalidArgumentError('SqliteCheckpointer takes a file path or a better-sqlite3 Database');
    }
    this.#settings = connectionSettings(options);
  }

  /** The database file (`':memory:'` for an in-memory one). */
  get filename(): string {
    return this.#path ?? this.#db?.name ?? '';
  }

  protected override locate(thread: string, step: number): string {
    return `${this.filename} thread ${JSON.stringify(thread)} step ${step}`;
  }

  readonly #locate = (thread: string, step: number): string => this.locate(thread, step);

  protected async initialize(): Promise<void> {
    // The connection is opened here, not in the constructor, so a bad path rejects as a StorageError.
    if (this.#db === undefined && this.#path !== undefined) createPrivateFile(this.#path);
    this.#db ??= new Database(this.#path) as unknown as SqliteDatabase;
    const db = this.#db;
    configure(db, this.#settings);
    migrate(db);
    const s = prepareStatements(db);
    this.#statements = s;
    this.#write = db.transaction((params: WriteParams, ifRevision: number | undefined) => {
      const row = (
        ifRevision === undefined
          ? s.upsert.get(params)
          : ifRevision === 0
            ? s.insertNew.get(params)
            : s.updateAt.get({ ...params, expected: ifRevision })
      ) as { revision: number } | undefined;
      if (row === undefined) {
        const stored = s.revision.get(params) as { revision: number } | undefined;
        throw new CheckpointConflict({
          thread: params.thread,
          step: params.step,
          expected: ifRevision ?? 0,
          actual: stored?.revision ?? 0,
          backend: this.backend,
        });
      }
      s.touchThread.run(params);
      return row.revision;
    }).immediate;
    this.#remove = db.transaction((thread: string) => {
      const removed = s.deleteCheckpoints.run({ thread }).changes;
      s.deleteThread.run({ thread });
      return removed;
    }).immediate;
  }

  // better-sqlite3 is synchronous, so the storage operations return plain values: no promise, no tick.
  protected writeRecord(record: CheckpointRecord, ifRevision: number | undefined): number {
    return this.#write!(writeParams(record), ifRevision);
  }

  protected readRecord(thread: string, step: number | undefined): CheckpointRecord | undefined {
    const s = this.#statements!;
    const row = (step === undefined ? s.latest.get(thread) : s.at.get(thread, step)) as
      | CheckpointRow
      | undefined;
    return row && rowToRecord(thread, row, this.#locate);
  }

  protected readRecords(thread: string, opts: ListOptions): CheckpointRecord[] {
    const rows = this.#statements!.list.all(
      thread,
      opts.beforeStep ?? MAX_STEP + 1,
      opts.limit ?? -1,
    ) as CheckpointRow[];
    return rows.map((row) => rowToRecord(thread, row, this.#locate));
  }

  protected readThreads(opts: ListThreadsOptions): ThreadInfo[] {
    // Every thread id is non-empty, so `> ''` is "from the start".
    const rows = this.#statements!.threads[opts.status ?? 'any'].all(
      opts.after ?? '',
      opts.limit ?? -1,
    ) as ThreadRow[];
    return rows.map(rowToThreadInfo);
  }

  protected removeThread(thread: string): number {
    return this.#remove!(thread);
  }

  protected removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): number {
    return this.#statements!.prune.run({
      thread,
      beforeStep: bounds.beforeStep ?? null,
      olderThan: bounds.olderThan === undefined ? null : Date.parse(bounds.olderThan),
    }).changes;
  }

  protected async release(): Promise<void> {
    this.#statements = undefined;
    this.#write = undefined;
    this.#remove = undefined;
    // A Database passed in stays the caller's to close.
    if (this.#path !== undefined && this.#db?.open) this.#db.close();
  }
}
