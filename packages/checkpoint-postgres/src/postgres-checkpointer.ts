import {
  BaseCheckpointer,
  type BaseCheckpointerOptions,
  CheckpointConflict,
  type CheckpointRecord,
  CorruptCheckpointError,
  flowPrefix,
  InvalidArgumentError,
  inTransaction,
  isFlowError,
  type Lease,
  type LeaseRecord,
  type LeaseResult,
  type ListOptions,
  type ListThreadsOptions,
  MAX_STEP,
  MissingChunkError,
  type NormalizedPruneBounds,
  SerializationError,
  StorageError,
  statusOf,
  type ThreadInfo,
  type TransactionDialect,
  threadSummaryOf,
  UnreadableThreadSummary,
  type WriteRecord,
} from '@flow/core';
import type { PgPool, PgPoolClient } from './driver.js';
import { arrayLiteral, GROUP_COLUMNS, groupPutStatement } from './group-statement.js';
import { type HeldWrites, WritesAwaitingPut } from './held-writes.js';
import { LinearThreads } from './linear-threads.js';
import { migrate, storeExists } from './migrate.js';
import { createPool, isPool, poolSize } from './pool.js';
import { type GroupOutcome, PutGroups } from './put-group.js';
import { quoteIdent } from './quote.js';
import {
  type CheckpointRow,
  type HeadRow,
  headToRecord,
  type LeaseRow,
  type ThreadRow,
  toLease,
  toRecords,
  toThreadInfo,
  toWrite,
} from './rows.js';
import { assertSchemaName } from './schema-name.js';
import { bind, buildStatements, type Statement, type Statements } from './statements.js';
import { assertPgStorableTs, beforePgEarliest, toPgTimestamp } from './timestamp.js';
import { pgTransactions } from './transaction.js';
import { parseConnectionUrl } from './url.js';

/** Options of `PostgresCheckpointer`. */
export interface PostgresCheckpointerOptions extends BaseCheckpointerOptions {
  /**
   * The schema holding the tables, created by `setup()` when missing. Lets apps share one database; distinct
   * names (case-sensitive: "Flow" ≠ "flow") are fully isolated. Must match `/^[A-Za-z_][A-Za-z0-9_]{0,62}$/`.
   * @default 'flow'
   */
  schema?: string;
  /**
   * How long (ms) one query may wait for the server before the call rejects with `StorageError` (pg's
   * `query_timeout`), so a stalled network or server never hangs a call. It applies to the pool the
   * checkpointer creates from a URL; a pool you pass in keeps its own settings (give it `query_timeout`).
   * A write that timed out may still have been applied: read the step back before writing it again.
   * @default 30000
   */
  queryTimeout?: number;
  /**
   * Whether `setup()` may create the schema and its tables when they are missing. With `false` the
   * checkpointer only opens an existing store: every call on a schema that holds none rejects with
   * `StorageError` and creates nothing, so a typo in a schema name never leaves a schema behind (a store of
   * an older version is still migrated). `exists()` asks without failing.
   * @default true
   */
  create?: boolean;
  /**
   * Whether statements are named prepared statements, parsed once per server connection. Set `false` behind
   * a pooler in transaction mode that does not track prepared statements (PgBouncer before 1.21, or without
   * `max_prepared_statements`): it hands each transaction any server connection, where a statement prepared
   * on another one does not exist. Every statement is then sent unnamed and parsed on each call.
   * @default true
   */
  preparedStatements?: boolean;
}

/** A put waiting for its turn (see `PutGroups`). */
interface PendingPut {
  record: CheckpointRecord;
  ifRevision: number | undefined;
  writes: WriteRecord[] | undefined;
  /** Another step's writes (a `putWrites` of the same tick) that travel in this put's statement. */
  carried: HeldWrites | undefined;
}

/** Above every valid step: the "no bound" value of `list` and `prune`. */
const NO_STEP_BOUND = MAX_STEP + 1;

/** A record's values in the order of a put's first parameters (alone or grouped), `next` as given. */
function recordValues(record: CheckpointRecord, next: unknown): unknown[] {
  return [
    record.thread,
    record.step,
    record.state,
    next,
    record.interrupted,
    record.interruptNode,
    record.interruptPayload,
    toPgTimestamp(record.ts),
    record.error,
    record.meta,
    statusOf(record),
    threadSummaryOf(record),
  ];
}

/**
 * A checkpointer on PostgreSQL (the `pg` driver): JSONB state, TIMESTAMPTZ times, a thread-summary table kept
 * in the same transaction as every write, versioned migrations applied by `setup()` under an advisory lock.
 * A put is one statement and one round trip; conditional puts are decided by the database.
 *
 * @example
 * import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
 *
 * const checkpointer = new PostgresCheckpointer('postgres://app@127.0.0.1:5432/app', { schema: 'flow' });
 * await checkpointer.put(new Checkpoint({ thread: 'order-42', step: 0, state: { n: 0 }, next: ['work'] }));
 * await checkpointer.close(); // ends the pool it created from the URL
 */
export class PostgresCheckpointer extends BaseCheckpointer {
  protected readonly backend = 'postgres';
  /** Chunks of linear states live in their own table / hash, written and read with their records. */
  protected override readonly storesChunks = true;
  /** The schema this instance uses. */
  readonly schema: string;
  readonly #pool: PgPool;
  readonly #ownsPool: boolean;
  readonly #transactions: TransactionDialect<PgPoolClient>;
  readonly #sql: Statements;
  readonly #awaitingPut = new WritesAwaitingPut();
  readonly #create: boolean;
  readonly #prepared: boolean;
  readonly #groups: PutGroups<PendingPut>;
  readonly #groupPut: Statement;
  /** Threads last seen linear: their gets read the chunks at once (see `LinearThreads`). */
  readonly #linear = new LinearThreads();

  /**
   * @param urlOrPool A `postgres://` URL (the checkpointer creates a pool and `close()` ends it; `?schema=`
   *   may name the schema), or a `pg.Pool`
   *   (or anything with its `query`/`connect`/`end`), which stays yours: `close()` leaves it open.
   */
  constructor(urlOrPool: string | PgPool, options: PostgresCheckpointerOptions = {}) {
    super(options);
    if (options.create !== undefined && typeof options.create !== 'boolean') {
      throw new InvalidArgumentError(`${flowPrefix('postgres')}the create option must be a boolean`);
    }
    this.#create = options.create ?? true;
    if (options.preparedStatements !== undefined && typeof options.preparedStatements !== 'boolean') {
      throw new InvalidArgumentError(
        `${flowPrefix('postgres')}the preparedStatements option must be a boolean`,
      );
    }
    this.#prepared = options.preparedStatements ?? true;
    const url = typeof urlOrPool === 'string' ? parseConnectionUrl(urlOrPool) : undefined;
    if (url?.schema !== undefined && options.schema !== undefined && url.schema !== options.schema) {
      throw new InvalidArgumentError(
        `${flowPrefix('postgres')}the URL says schema ${JSON.stringify(url.schema)} but options say ${JSON.stringify(options.schema)}`,
      );
    }
    // Only an omitted schema means the default; null or '' is a mistake worth reporting.
    const schema = options.schema === undefined ? (url?.schema ?? 'flow') : options.schema;
    assertSchemaName(schema);
    this.schema = schema;
    if (url !== undefined) {
      this.#pool = createPool(url.url, options.queryTimeout);
      this.#ownsPool = true;
    } else if (isPool(urlOrPool)) {
      if (options.queryTimeout !== undefined) {
        throw new InvalidArgumentError(
          `${flowPrefix('postgres')}queryTimeout applies to a pool made from a URL; set query_timeout on your own pool`,
        );
      }
      this.#pool = urlOrPool;
      this.#ownsPool = false;
    } else {
      throw new InvalidArgumentError(
        `${flowPrefix('postgres')}needs a connection URL or a pg.Pool (an object with query, connect and end)`,
      );
    }
    this.#sql = buildStatements(schema);
    this.#transactions = pgTransactions(this.#pool);
    this.#groupPut = groupPutStatement(schema, quoteIdent(schema));
    this.#groups = new PutGroups<PendingPut>(
      poolSize(this.#pool),
      ({ item }) => this.#putAlone(item.record, item.ifRevision, item.writes, item.carried),
      (items) => this.#putGroup(items),
      ({ item }) => this.#conflict(item.record, item.ifRevision),
    );
  }

  #bind(statement: Statement, values: unknown[]) {
    return bind(statement, values, this.#prepared);
  }

  /**
   * A named statement missing on (or already prepared on) the server connection a query ran on: a pooler in
   * transaction mode (PgBouncer before 1.21, or without `max_prepared_statements`) handed it another one.
   */
  protected override hintFor(error: unknown): string | undefined {
    const code = (error as { code?: unknown } | null)?.code;
    if (!this.#prepared || (code !== '26000' && code !== '42P05')) return undefined;
    return 'behind a pooler in transaction mode such as PgBouncer, open the store with { preparedStatements: false }';
  }

  protected override locate(thread: string, step: number): string {
    return `${quoteIdent(this.schema)}.checkpoints thread ${JSON.stringify(thread)} step ${step}`;
  }

  /**
   * Whether the schema holds a store (`setup()` ran on it), without creating anything. Resolves false for a
   * missing schema; rejects with `StorageError` when the server cannot be reached.
   */
  async exists(): Promise<boolean> {
    if (this.closed) throw new StorageError(`${flowPrefix('postgres')}the checkpointer is closed`);
    try {
      return await storeExists(this.#pool, this.schema);
    } catch (error) {
      if (isFlowError(error)) throw error;
      throw new StorageError(`${flowPrefix('postgres')}exists failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  protected initialize(): Promise<void> {
    return migrate(this.#pool, this.schema, { create: this.#create });
  }

  protected writeRecord(record: CheckpointRecord, ifRevision: number | undefined): Promise<number> {
    return this.#put(record, ifRevision, undefined);
  }

  protected override writeRecordWithWrites(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): Promise<number> {
    return this.#put(record, ifRevision, writes);
  }

  protected override writeWrites(thread: string, step: number, writes: WriteRecord[]): Promise<void> {
    return this.#awaitingPut.hold(thread, step, writes, (at, held) => this.#putWrites(thread, at, held));
  }

  async #putWrites(thread: string, step: number, writes: WriteRecord[]): Promise<void> {
    await this.#pool
      .query(this.#bind(this.#sql.putWrites, [thread, step, ...writeColumns(writes)]))
      .catch((error: unknown) => {
        throw jsonbRejected(error, { thread, step }) ?? error;
      });
  }

  protected override async readWrites(thread: string, step: number): Promise<WriteRecord[]> {
    const { rows } = await this.#pool.query<WriteRecord>(this.#bind(this.#sql.getWrites, [thread, step]));
    return rows.map(toWrite);
  }

  protected override async writeLease(
    thread: string,
    lease: LeaseRecord,
    replace: string | undefined,
  ): Promise<LeaseResult> {
    const { rows } = await this.#pool.query<LeaseRow>(
      this.#bind(this.#sql.acquireLease, [
        thread,
        lease.owner,
        lease.host,
        lease.pid,
        lease.ttlMs,
        replace ?? '',
      ]),
    );
    if (rows[0] !== undefined) return { acquired: true, lease: toLease(thread, rows[0]) };
    // Held by someone else, live: one more query, on this path only, names the holder.
    const held = await this.#pool.query<LeaseRow>(this.#bind(this.#sql.leaseHolder, [thread]));
    // Gone between the two queries (released, or the thread deleted): the lease is free, so try again.
    if (held.rows[0] === undefined) return this.writeLease(thread, lease, replace);
    return { acquired: false, holder: toLease(thread, held.rows[0]) };
  }

  protected override async extendLease(thread: string, owner: string, ttlMs: number): Promise<boolean> {
    const { rows } = await this.#pool.query(this.#bind(this.#sql.renewLease, [thread, owner, ttlMs]));
    return rows.length === 1;
  }

  protected override async dropLease(thread: string, owner: string): Promise<void> {
    await this.#pool.query(this.#bind(this.#sql.releaseLease, [thread, owner]));
  }

  protected override async readLease(thread: string): Promise<Lease | undefined> {
    const { rows } = await this.#pool.query<LeaseRow>(this.#bind(this.#sql.getLease, [thread]));
    return rows[0] && toLease(thread, rows[0]);
  }

  #put(record: CheckpointRecord, ifRevision: number | undefined, writes: WriteRecord[] | undefined) {
    // A ts before 4713 BC would fail the statement with "timestamp out of range": refused before it is sent.
    assertPgStorableTs(record.ts, record.thread, record.step);
    // A putWrites of this thread issued in the same tick travels in this put's statement (WritesAwaitingPut).
    const carried = writes === undefined ? this.#awaitingPut.take(record.thread) : undefined;
    const linear = (record.refs?.length ?? 0) > 0 || (record.chunks?.length ?? 0) > 0;
    this.#linear.note(record.thread, linear);
    // Puts with writes or chunks always go alone; the group statement stores whole states only.
    const groupable = writes === undefined && carried === undefined && !linear;
    return this.#groups.put(record.thread, { record, ifRevision, writes, carried }, groupable);
  }

  /** One group statement for `items` (one per thread, whole states, no writes). */
  async #putGroup(items: readonly PendingPut[]): Promise<GroupOutcome> {
    const columns: unknown[][] = Array.from({ length: GROUP_COLUMNS }, () => new Array(items.length));
    for (const [i, { record, ifRevision }] of items.entries()) {
      // A group's columns are arrays of one type each: the frontier goes as one text[] literal per row.
      const row = [...recordValues(record, arrayLiteral(record.next)), ifRevision ?? null];
      for (let c = 0; c < GROUP_COLUMNS; c++) columns[c]![i] = row[c];
    }
    try {
      const { rows } = await this.#pool.query<{ ord: number; revision: number | null }>(
        this.#bind(this.#groupPut, columns),
      );
      return { ok: true, revisions: rows.map((r) => (r.revision === null ? null : Number(r.revision))) };
    } catch (error) {
      // An SQL error (a SQLSTATE) rolled the statement back; anything else may have committed it.
      return { ok: false, retry: typeof (error as { code?: unknown } | null)?.code === 'string', error };
    }
  }

  async #putAlone(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[] | undefined,
    carried: HeldWrites | undefined,
  ): Promise<number> {
    const values = recordValues(record, record.next);
    const refs = record.refs ?? [];
    const chunks = record.chunks ?? [];
    const linear = refs.length > 0 || chunks.length > 0;
    const kind = linear ? this.#sql.linear : this.#sql;
    if (linear) {
      values.push(
        refs.join(' '),
        chunks.map((c) => c.id),
        chunks.map((c) => c.data),
      );
    }
    const forms =
      writes !== undefined ? kind.withWrites : carried !== undefined ? kind.withEarlierWrites : kind;
    let statement = forms.put;
    if (ifRevision === 0) statement = forms.putIfAbsent;
    else if (ifRevision !== undefined) {
      statement = forms.putIfRevision;
      values.push(ifRevision);
    }
    if (writes !== undefined) values.push(...writeColumns(writes));
    if (carried !== undefined) values.push(carried.step, ...writeColumns(carried.writes));
    let sent: Promise<{ rows: { revision: number | null; missing?: string | null }[] }>;
    try {
      sent = this.#pool.query<{ revision: number | null; missing?: string | null }>(
        this.#bind(statement, values),
      );
    } catch (error) {
      carried?.settle(this.#putWrites(record.thread, carried.step, carried.writes));
      throw error;
    }
    // The carried writes are stored whether or not the checkpoint is; if the statement failed, they go alone,
    // so neither fails for the other's fault.
    carried?.settle(
      sent.then(
        () => undefined,
        () => this.#putWrites(record.thread, carried.step, carried.writes),
      ),
    );
    const { rows } = await sent.catch((error: unknown) => {
      throw jsonbRejected(error, record) ?? error;
    });
    const written = rows[0];
    if (written !== undefined && written.revision !== null) return Number(written.revision);
    if (typeof written?.missing === 'string') {
      throw new MissingChunkError({ thread: record.thread, id: written.missing, backend: this.backend });
    }
    return this.#conflict(record, ifRevision);
  }

  /** Only a conditional put writes nothing; one more query, on this path only, names what is stored. */
  async #conflict(record: CheckpointRecord, ifRevision: number | undefined): Promise<never> {
    const stored = await this.#pool.query<{ revision: number }>(
      this.#bind(this.#sql.revisionOf, [record.thread, record.step]),
    );
    throw new CheckpointConflict({
      thread: record.thread,
      step: record.step,
      expected: ifRevision ?? 0,
      actual: Number(stored.rows[0]?.revision ?? 0),
      backend: this.backend,
    });
  }

  protected async readRecord(
    thread: string,
    step: number | undefined,
  ): Promise<CheckpointRecord | undefined> {
    const values = step === undefined ? [thread] : [thread, step];
    const sql = this.#sql;
    const withChunks = step === undefined ? sql.getLatestWithChunks : sql.getStepWithChunks;
    if (!this.#linear.has(thread)) {
      const { rows } = await this.#pool.query<HeadRow>(
        this.#bind(step === undefined ? sql.getLatest : sql.getStep, values),
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      const record = headToRecord(thread, row);
      if (record.refs === undefined) return record;
    }
    // A linear record (or, by the guess, likely one): read with its chunks, in one statement, so in one
    // snapshot. Fetching the chunks a first read's refs name by a second query instead could miss some that a
    // prune or deleteThread committed between the two; this read answers as of its own moment (a newer latest
    // step, or nothing).
    const { rows } = await this.#pool.query<CheckpointRow>(this.#bind(withChunks, values));
    const record = toRecords(thread, rows)[0];
    this.#linear.note(thread, record?.refs !== undefined);
    return record;
  }

  protected async readRecords(thread: string, opts: ListOptions): Promise<CheckpointRecord[]> {
    const { rows } = await this.#pool.query<CheckpointRow>(
      this.#bind(this.#sql.list, [thread, opts.beforeStep ?? NO_STEP_BOUND, opts.limit ?? null]),
    );
    return toRecords(thread, rows);
  }

  protected async readThreads(opts: ListThreadsOptions): Promise<ThreadInfo[]> {
    const { rows } = await this.#pool.query<ThreadRow>(
      this.#bind(this.#sql.listThreads[opts.status ?? 'all'], [afterBound(opts.after), opts.limit ?? null]),
    );
    const threads: ThreadInfo[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      try {
        threads[i] = toThreadInfo(row);
      } catch (error) {
        if (!(error instanceof UnreadableThreadSummary)) throw error;
        const where = `${quoteIdent(this.schema)}.threads thread ${JSON.stringify(row.thread)}`;
        throw new CorruptCheckpointError(where, error.message, { backend: this.backend });
      }
    }
    return threads;
  }

  protected async removeThread(thread: string): Promise<number> {
    this.#linear.forget(thread);
    return inTransaction(this.#transactions, async (client) => {
      // Wait for in-flight puts of this thread (they hold its lock), and keep new ones out until COMMIT;
      // the DELETE then runs on a fresh snapshot that sees every committed step.
      await client.query(this.#bind(this.#sql.lockThread, [thread]));
      const { rows } = await client.query<{ removed: number }>(this.#bind(this.#sql.deleteThread, [thread]));
      return rows[0]?.removed ?? 0;
    });
  }

  protected async removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): Promise<number> {
    // Nothing stored is before 4713 BC, Postgres's earliest timestamp, so an older bound removes nothing.
    const olderThan =
      bounds.olderThan === undefined
        ? 'infinity'
        : beforePgEarliest(bounds.olderThan)
          ? '-infinity'
          : toPgTimestamp(bounds.olderThan);
    return inTransaction(this.#transactions, async (client) => {
      // As in removeThread: the prune's snapshot must see every put of the thread that committed, or it
      // would remove chunks a just-written checkpoint references.
      await client.query(this.#bind(this.#sql.lockThread, [thread]));
      const { rows } = await client.query<{ removed: number }>(
        this.#bind(this.#sql.prune, [thread, bounds.beforeStep ?? NO_STEP_BOUND, olderThan]),
      );
      return rows[0]?.removed ?? 0;
    });
  }

  protected async release(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end();
  }
}

/**
 * Postgres refused the serialized text as JSONB (SQLSTATE 22P02/22P05): a custom serializer that does not emit
 * JSON, or one that emits a raw lone-surrogate escape (the default serializer tags those). Nothing was
 * written, as with any value that cannot be serialized, so it is a `SerializationError`.
 */
function jsonbRejected(
  error: unknown,
  record: { thread: string; step: number },
): SerializationError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== '22P02' && code !== '22P05') return undefined;
  const { message, detail } = error as { message?: string; detail?: string };
  return new SerializationError(
    `${flowPrefix('postgres')}a serialized value (state, interruptPayload or a write) of thread ` +
      `${JSON.stringify(record.thread)} step ${record.step} is not storable as JSONB: ` +
      `${message}${detail ? ` (${detail})` : ''}`,
    { cause: error },
  );
}

/** Writes as the three parallel arrays (nodes, keys, values) the statements unnest. */
function writeColumns(writes: readonly WriteRecord[]): [string[], string[], string[]] {
  return [writes.map((w) => w.node), writes.map((w) => w.key), writes.map((w) => w.value)];
}

/**
 * The `after` bound as Postgres can take it. Text cannot hold U+0000 and no thread id contains it, so the
 * ids after "ab\u0000c" are exactly the ids after "ab": cutting at the first U+0000 keeps the meaning.
 */
function afterBound(after: string | undefined): string {
  if (after === undefined) return '';
  const nul = after.indexOf('\u0000');
  return nul === -1 ? after : after.slice(0, nul);
}
