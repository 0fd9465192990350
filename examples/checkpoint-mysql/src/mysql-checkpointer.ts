import {
  BaseCheckpointer,
  type BaseCheckpointerOptions,
  CheckpointConflict,
  type CheckpointRecord,
  compareWrites,
  flowPrefix,
  InvalidArgumentError,
  inTransaction,
  type Lease,
  type LeaseRecord,
  type LeaseResult,
  type ListOptions,
  type ListThreadsOptions,
  MAX_STEP,
  MissingChunkError,
  type NormalizedPruneBounds,
  SerializationError,
  statusOf,
  type ThreadInfo,
  type TransactionDialect,
  type WriteRecord,
} from '@flow/core';
import type { MysqlConnection, MysqlPool, MysqlQueryable, MysqlWriteResult } from './driver.js';
import { createPool, isPool } from './pool.js';
import { type LeaseRow, type ReadRow, splitRead, type ThreadRow, toLease, toThreadInfo } from './rows.js';
import { migrate, type Tables, tablesFor } from './schema.js';
import { buildStatements, type Statements, WRITES_PER_INSERT } from './statements.js';
import { assertTablePrefix } from './table-prefix.js';
import { mysqlTransactions } from './transaction.js';
import { writeHash } from './write-hash.js';

/** Options of `MysqlCheckpointer`. */
export interface MysqlCheckpointerOptions extends BaseCheckpointerOptions {
  /**
   * Put in front of the table names (`flow_checkpoints`, `flow_threads`, `flow_writes`, `flow_leases`), so one database can hold several
   * stores and your own tables. 1–32 characters of `[a-z0-9_]`.
   * @default 'flow_'
   */
  tablePrefix?: string;
}

/** Chunks one insert carries at most, and about how many characters of data. */
const CHUNKS_PER_INSERT = 64;
const BYTES_PER_INSERT = 1 << 20;

/** Above every valid step: the "no bound" of `list` and `prune`. */
const NO_STEP_BOUND = MAX_STEP + 1;
/** MySQL's "Duplicate entry" error: the primary key refused an `ifRevision: 0` insert. */
const ER_DUP_ENTRY = 1062;

/**
 * A `@flow` checkpointer on MySQL or MariaDB (the `mysql2` driver): one transaction per put, conditional
 * writes decided by the database (the primary key, `UPDATE … WHERE revision = ?`), and a thread-summary table
 * kept in the same transaction, which `listThreads` reads without touching state.
 *
 * @example
 * import { MysqlCheckpointer } from 'flow-checkpoint-mysql';
 *
 * const checkpointer = new MysqlCheckpointer('mysql://root@127.0.0.1:3306/test');
 * await checkpointer.put(new Checkpoint({ thread: 'order-42', step: 0, state: { n: 0 }, next: ['work'] }));
 * await checkpointer.close(); // ends the pool it created from the URL
 */
export class MysqlCheckpointer extends BaseCheckpointer {
  protected readonly backend = 'mysql';
  /** Stores chunks of linear states with their records (see the README). */
  protected override readonly storesChunks = true;
  /** The table prefix this instance uses. */
  readonly tablePrefix: string;
  readonly #pool: MysqlPool;
  readonly #ownsPool: boolean;
  readonly #tables: Tables;
  readonly #sql: Statements;
  readonly #transactions: TransactionDialect<MysqlConnection>;

  /**
   * @param urlOrPool A `mysql://user:password@host:3306/database` URL (the checkpointer creates a pool and
   *   `close()` ends it), or a `mysql2/promise` pool, which stays yours: `close()` leaves it open.
   */
  constructor(urlOrPool: string | MysqlPool, options: MysqlCheckpointerOptions = {}) {
    super(options);
    const prefix = options.tablePrefix === undefined ? 'flow_' : options.tablePrefix;
    assertTablePrefix(prefix);
    this.tablePrefix = prefix;
    if (typeof urlOrPool === 'string') {
      this.#pool = createPool(urlOrPool);
      this.#ownsPool = true;
    } else if (isPool(urlOrPool)) {
      this.#pool = urlOrPool;
      this.#ownsPool = false;
    } else {
      throw new InvalidArgumentError(
        `${flowPrefix('mysql')}needs a connection URL or a mysql2/promise pool (execute, query, getConnection, end)`,
      );
    }
    this.#tables = tablesFor(prefix);
    this.#sql = buildStatements(this.#tables);
    this.#transactions = mysqlTransactions(this.#pool);
  }

  protected override locate(thread: string, step: number): string {
    return `${this.#tables.checkpoints} thread ${JSON.stringify(thread)} step ${step}`;
  }

  protected initialize(): Promise<void> {
    return migrate(this.#pool, this.#tables, this.tablePrefix);
  }

  protected writeRecord(record: CheckpointRecord, ifRevision: number | undefined): Promise<number> {
    return this.#put(record, ifRevision, []);
  }

  protected override writeRecordWithWrites(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): Promise<number> {
    return this.#put(record, ifRevision, writes);
  }

  /** The put and its writes in one transaction: a conflict throws before any write, and rolls back. */
  async #put(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): Promise<number> {
    assertStorable(record);
    assertWritesStorable(record.thread, record.step, writes);
    const { thread, step } = record;
    const next = JSON.stringify(record.next);
    const ts = Date.parse(record.ts);
    const fields = [
      ts,
      next,
      record.interrupted,
      record.interruptNode,
      record.interruptPayload,
      record.state,
      record.error,
      record.meta,
      record.refs !== undefined && record.refs.length > 0 ? JSON.stringify(record.refs) : null,
    ];
    const done = statusOf(record) === 'done';
    return inTransaction(this.#transactions, async (db) => {
      let revision: number;
      if (ifRevision === 0) {
        await db.execute(this.#sql.insert, [thread, step, ...fields]).catch(async (error: unknown) => {
          if ((error as { errno?: unknown }).errno !== ER_DUP_ENTRY) throw error;
          throw await this.#conflict(db, record, 0);
        });
        revision = 1;
      } else if (ifRevision !== undefined) {
        const [result] = await db.execute(this.#sql.updateIfRevision, [...fields, thread, step, ifRevision]);
        if ((result as MysqlWriteResult).affectedRows === 0)
          throw await this.#conflict(db, record, ifRevision);
        revision = ifRevision + 1;
      } else {
        await db.execute(this.#sql.upsert, [thread, step, ...fields]);
        revision = (await this.#revisionOf(db, thread, step)) ?? 1;
      }
      await this.#storeChunks(db, record);
      await db.execute(this.#sql.upsertSummary, [thread, step, record.interrupted, done, record.error, ts]);
      await this.#insertWrites(db, thread, step, writes);
      return revision;
    });
  }

  /**
   * In the put's transaction, after its conflict check: inserts the record's new chunks, then checks that
   * every other id of `refs` is stored, share-locking those rows until the commit (`MissingChunkError`, and
   * the rollback, otherwise).
   */
  async #storeChunks(db: MysqlQueryable, record: CheckpointRecord): Promise<void> {
    if (record.refs === undefined || record.refs.length === 0) return;
    const chunks = record.chunks ?? [];
    await this.#insertBatches(db, chunks, this.#sql.insertChunks, (c) => [record.thread, c.id, c.data], {
      rows: CHUNKS_PER_INSERT,
      bytes: (c) => c.data.length,
    });
    const brought = new Set(chunks.map((c) => c.id));
    const others = [...new Set(record.refs)].filter((id) => !brought.has(id));
    if (others.length === 0) return;
    const [rows] = await db.execute(this.#sql.storedChunks, [JSON.stringify(others), record.thread]);
    const stored = new Set((rows as { id: string }[]).map((r) => r.id));
    const missing = others.find((id) => !stored.has(id));
    if (missing !== undefined) {
      throw new MissingChunkError({ thread: record.thread, id: missing, backend: this.backend });
    }
  }

  protected override async writeWrites(thread: string, step: number, writes: WriteRecord[]): Promise<void> {
    assertWritesStorable(thread, step, writes);
    if (writes.length === 0) return;
    await inTransaction(this.#transactions, (db) => this.#insertWrites(db, thread, step, writes));
  }

  protected override async readWrites(thread: string, step: number): Promise<WriteRecord[]> {
    const [rows] = await this.#pool.execute(this.#sql.getWrites, [thread, step]);
    // Core's code-point order, not the collation's: the rule lives once.
    return (rows as WriteRecord[]).map(({ node, key, value }) => ({ node, key, value })).sort(compareWrites);
  }

  #insertWrites(db: MysqlQueryable, thread: string, step: number, writes: WriteRecord[]): Promise<void> {
    const values = (w: WriteRecord) => [thread, step, writeHash(w.node, w.key), w.node, w.key, w.value];
    return this.#insertBatches(db, writes, this.#sql.insertWrites, values, { rows: WRITES_PER_INSERT });
  }

  /**
   * Inserts `items` in order, in statements of at most `limit.rows` rows (and, with `limit.bytes`, about
   * BYTES_PER_INSERT characters, so a statement stays well under the server's packet limit) whose sizes are
   * powers of two: a handful of distinct statement texts, so the driver's prepared-statement cache stays small.
   */
  async #insertBatches<T>(
    db: MysqlQueryable,
    items: readonly T[],
    sql: (rows: number) => string,
    values: (item: T) => unknown[],
    limit: { rows: number; bytes?: (item: T) => number },
  ): Promise<void> {
    const weigh = limit.bytes;
    const weight = (batch: readonly T[]) => batch.reduce((sum, item) => sum + weigh!(item), 0);
    for (let at = 0; at < items.length; ) {
      let size = limit.rows;
      while (size > items.length - at) size /= 2;
      if (weigh !== undefined)
        while (size > 1 && weight(items.slice(at, at + size)) > BYTES_PER_INSERT) size /= 2;
      await db.execute(sql(size), items.slice(at, at + size).flatMap(values));
      at += size;
    }
  }

  protected override writeLease(
    thread: string,
    lease: LeaseRecord,
    replace: string | undefined,
  ): Promise<LeaseResult> {
    return inTransaction(this.#transactions, async (db) => {
      await db.execute(this.#sql.acquireLease, [
        thread,
        lease.owner,
        lease.host,
        lease.pid,
        lease.ttlMs * 1000,
        replace ?? '',
      ]);
      // The upsert locked the row: what it holds now is what the statement decided.
      const [rows] = await db.execute(this.#sql.leaseRow, [thread]);
      const stored = toLease(thread, (rows as LeaseRow[])[0]!);
      return stored.owner === lease.owner
        ? { acquired: true, lease: stored }
        : { acquired: false, holder: stored };
    });
  }

  protected override extendLease(thread: string, owner: string, ttlMs: number): Promise<boolean> {
    return inTransaction(this.#transactions, async (db) => {
      const [rows] = await db.execute(this.#sql.liveLeaseOf, [thread, owner]);
      if ((rows as unknown[]).length === 0) return false;
      await db.execute(this.#sql.renewLease, [ttlMs * 1000, thread]);
      return true;
    });
  }

  protected override async dropLease(thread: string, owner: string): Promise<void> {
    await this.#pool.execute(this.#sql.releaseLease, [thread, owner]);
  }

  protected override async readLease(thread: string): Promise<Lease | undefined> {
    const [rows] = await this.#pool.execute(this.#sql.getLease, [thread]);
    const row = (rows as LeaseRow[])[0];
    return row && toLease(thread, row);
  }

  protected async readRecord(
    thread: string,
    step: number | undefined,
  ): Promise<CheckpointRecord | undefined> {
    const where = step === undefined ? [thread] : [thread, step];
    const sql = step === undefined ? this.#sql.getLatest : this.#sql.getStep;
    const [rows] = await this.#pool.execute(sql, [...where, thread, ...where]);
    return splitRead(thread, rows as ReadRow[], (s) => this.locate(thread, s))[0];
  }

  protected async readRecords(thread: string, opts: ListOptions): Promise<CheckpointRecord[]> {
    const where: unknown[] = [thread, opts.beforeStep ?? NO_STEP_BOUND];
    if (opts.limit !== undefined) where.push(opts.limit);
    const sql = this.#sql.list(opts.limit !== undefined);
    const [rows] = await this.#pool.execute(sql, [...where, thread, ...where]);
    // The union of a read keeps no order: newest first, as list promises.
    return splitRead(thread, rows as ReadRow[], (s) => this.locate(thread, s)).sort(
      (a, b) => b.step - a.step,
    );
  }

  protected async readThreads(opts: ListThreadsOptions): Promise<ThreadInfo[]> {
    const values: unknown[] = [];
    if (opts.after !== undefined) values.push(opts.after);
    if (opts.limit !== undefined) values.push(opts.limit);
    const sql = this.#sql.listThreads(opts.after !== undefined, opts.status, opts.limit !== undefined);
    const [rows] = await this.#pool.execute(sql, values);
    return (rows as ThreadRow[]).map(toThreadInfo);
  }

  protected removeThread(thread: string): Promise<number> {
    return inTransaction(this.#transactions, async (db) => {
      const [result] = await db.execute(this.#sql.deleteCheckpoints, [thread]);
      await db.execute(this.#sql.deleteSummary, [thread]);
      await db.execute(this.#sql.deleteWrites, [thread]);
      await db.execute(this.#sql.deleteLease, [thread]);
      await db.execute(this.#sql.deleteChunks, [thread]);
      return (result as MysqlWriteResult).affectedRows;
    });
  }

  protected removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): Promise<number> {
    const olderThan = bounds.olderThan !== undefined;
    const values: unknown[] = [thread, bounds.beforeStep ?? NO_STEP_BOUND];
    if (bounds.olderThan !== undefined) values.push(Date.parse(bounds.olderThan));
    values.push(thread);
    // The steps' writes first, while their checkpoints still say which steps go.
    return inTransaction(this.#transactions, async (db) => {
      await db.execute(this.#sql.pruneWrites(olderThan), [thread, ...values]);
      const [result] = await db.execute(this.#sql.prune(olderThan), values);
      // Swept even when no checkpoint went: an overwritten step leaves its old chunks unreferenced, and
      // `flow rekey` counts on this prune to drop them (a plaintext or retired-key copy of the state).
      await this.#collectChunks(db, thread);
      return (result as MysqlWriteResult).affectedRows;
    });
  }

  /**
   * In prune's transaction, after its deletes: removes the chunks no remaining checkpoint references. The
   * chunks are locked first and the refs read after (a locking read: the latest rows), so a put that
   * share-locked a chunk has committed, and is counted, before the refs are read, and a put that comes later
   * waits, then finds its chunk gone (`MissingChunkError`) — whatever the isolation level.
   */
  async #collectChunks(db: MysqlQueryable, thread: string): Promise<void> {
    const [stored] = await db.execute(this.#sql.lockChunks, [thread]);
    if ((stored as unknown[]).length === 0) return;
    const [referenced] = await db.execute(this.#sql.referencedChunks, [thread]);
    const keep = new Set((referenced as { id: string }[]).map((r) => r.id));
    const unreferenced = (stored as { id: string }[]).map((r) => r.id).filter((id) => !keep.has(id));
    if (unreferenced.length > 0) {
      await db.execute(this.#sql.removeChunks, [thread, JSON.stringify(unreferenced)]);
    }
  }

  protected async release(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }

  async #revisionOf(db: MysqlQueryable, thread: string, step: number): Promise<number | undefined> {
    const [rows] = await db.execute(this.#sql.revisionOf, [thread, step]);
    const row = (rows as { revision: number | string }[])[0];
    return row && Number(row.revision);
  }

  async #conflict(
    db: MysqlQueryable,
    record: CheckpointRecord,
    expected: number,
  ): Promise<CheckpointConflict> {
    const actual = (await this.#revisionOf(db, record.thread, record.step)) ?? 0;
    return new CheckpointConflict({
      thread: record.thread,
      step: record.step,
      expected,
      actual,
      backend: this.backend,
    });
  }
}

/**
 * The driver sends strings as UTF-8, where a lone UTF-16 surrogate has no form and would silently become
 * U+FFFD. The default serializer escapes them, so only a custom serializer (or a node name) can produce one:
 * refuse it before anything is written, like any other value that cannot be stored.
 */
function assertStorable(record: CheckpointRecord): void {
  const texts = {
    state: record.state,
    interruptPayload: record.interruptPayload,
    interruptNode: record.interruptNode,
  };
  const chunks = (record.chunks ?? []).map((c) => [`chunk ${JSON.stringify(c.id)}`, c.data] as const);
  for (const [field, text] of [...Object.entries(texts), ...chunks]) {
    if (text !== null && !text.isWellFormed()) {
      throw new SerializationError(
        `${flowPrefix('mysql')}${field} of thread ${JSON.stringify(record.thread)} step ${record.step} holds a lone ` +
          'UTF-16 surrogate, which has no UTF-8 form',
      );
    }
  }
}

/** The same refusal for write values (node and key are checked by core: no lone surrogates there). */
function assertWritesStorable(thread: string, step: number, writes: readonly WriteRecord[]): void {
  for (const w of writes) {
    if (!w.value.isWellFormed()) {
      throw new SerializationError(
        `${flowPrefix('mysql')}the write ${JSON.stringify(w.node)}/${JSON.stringify(w.key)} of thread ` +
          `${JSON.stringify(thread)} step ${step} holds a lone UTF-16 surrogate, which has no UTF-8 form`,
      );
    }
  }
}
