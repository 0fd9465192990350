import {
  BaseCheckpointer,
  type BaseCheckpointerOptions,
  CheckpointConflict,
  type CheckpointRecord,
  type ChunkRecord,
  CorruptCheckpointError,
  compareThreadIds,
  compareWrites,
  flowPrefix,
  InvalidArgumentError,
  isFlowError,
  type Lease,
  type LeaseRecord,
  type LeaseResult,
  type ListOptions,
  type ListThreadsOptions,
  MissingChunkError,
  type NormalizedPruneBounds,
  StorageError,
  statusOf,
  type ThreadInfo,
  threadInfoFromSummary,
  threadSummaryOf,
  UnreadableThreadSummary,
  type WriteRecord,
} from '@flow/core';
import { type Redis, ReplyError } from 'ioredis';
import {
  assertClient,
  createClient,
  explainFailure,
  isCluster,
  parseStoreUrl,
  type RedisArg,
  type RedisClient,
  selectDatabase,
} from './client.js';
import {
  attachChunks,
  decodeLease,
  decodeRow,
  decodeWrites,
  groups,
  packStep,
  UnreadableEntry,
  writeArgs,
  writeField,
} from './codec.js';
import { indexKeys, type KeyLayout, keyLayout, threadKeys } from './keys.js';
import { PutBatches, type PutReply } from './put-batch.js';
import { type QueuedCommand, runScript, runScriptInMulti } from './run-script.js';
import {
  ACQUIRE_LEASE,
  DELETE,
  INIT,
  type LuaScript,
  PRUNE,
  PUT,
  READ,
  READ_LATEST,
  READ_LEASE,
  READ_WRITES,
  RELEASE_LEASE,
  RENEW_LEASE,
  SCRIPTS,
  UPGRADE_INDEXES,
  WRITES,
} from './scripts.js';

/** The layout version `setup()` records under a prefix. */
// 2: states moved from the checkpoints hash to keys of their own (keys.ts).
// 3: writes, leases, the failed index, error and meta in the meta JSON, the meta JSON in the summary.
// 4: chunks of linear state (a hash per thread) and each step's refs (N:f). An earlier release would read a
// state that references chunks as if it were whole, so the version changes for it to refuse the prefix.
// 5: index members carry each thread's summary text (`<thread> NUL <summary>`), so listing is one range read.
// 6: a step is one packed field `N` of the checkpoints hash instead of six (codec.ts's packStep), and the
// head keeps no `ts` and `m`: some 60 bytes a field in a hash past its listpack limits, 40 % of W6's bytes.
// 7: a thread's steps in blocks of 128 (`sx` and `sb` keys), each a sorted set Redis keeps as a listpack
// (some 100 bytes a step in one sorted set of more than 128; 10 % of W6's bytes after layout 6). A thread's
// sorted set of layout 6 or before is read as it is, and its next put moves it to blocks.
// Each layout only adds to the one before, whose data it reads as it is (a step of six fields reads, is
// overwritten and pruned as such), except for 5's index members: setup() moves a prefix of layout 2, 3 or 4
// by rewriting them (UPGRADE_INDEXES), then records 7 (a cluster prefix of layout 3 to 6 too; layout 2 had
// no cluster form); a prefix of layout 5 or 6 only gets its new version.
const FORMAT_VERSION = '7';
const EARLIER_FORMAT_VERSIONS = ['6', '5', '4', '3', '2'];
/** The earlier layouts whose index members already carry summaries. */
const SUMMARIZED_INDEXES = ['6', '5'];

/**
 * States up to this many UTF-16 units (about as many bytes of JSON) go to the put script as an argument and
 * are stored in the checkpoints hash; larger ones are SET in the put's MULTI and kept in a key of their own.
 * Near here the two paths cost the same on this machine: Lua copies an argument at ~1.6 ns per byte, and the
 * MULTI costs three more commands.
 */
const INLINE_STATE_LIMIT = 32 * 1024;

/** Options of `RedisCheckpointer`. */
export interface RedisCheckpointerOptions extends BaseCheckpointerOptions {
  /**
   * Namespace of every key, `/^[A-Za-z0-9_:.-]{1,64}$/`. Distinct prefixes are fully isolated. A URL may
   * carry it as `?prefix=`.
   * @default 'flow'
   */
  prefix?: string;
  /**
   * Whether `setup()` may create the store when the prefix holds none. With `false` the checkpointer only
   * opens an existing store: every call on a prefix that holds none rejects with `StorageError` and writes
   * nothing, so a typo in a prefix never leaves keys behind. `exists()` asks without failing.
   * @default true
   */
  create?: boolean;
}

/**
 * Checkpoints in Redis through ioredis. Every write is one Lua script call (for a large state, in one MULTI
 * with the SET of the state: still one round trip), so conditional puts are atomic across processes; puts
 * that arrive together share one call, each still on its own (`PutBatches`); `listThreads` pages through
 * sorted-set indexes without reading state.
 * Redis is durable only with AOF or RDB persistence configured: see the README.
 *
 * @example
 * const checkpointer = new RedisCheckpointer('redis://127.0.0.1:6379', { prefix: 'orders' });
 * await checkpointer.put(new Checkpoint({ thread: 'order-42', step: 0, state: { n: 0 }, next: ['work'] }));
 * await checkpointer.close(); // quits the client it created
 */
export class RedisCheckpointer extends BaseCheckpointer {
  protected readonly backend = 'redis';
  /** Chunks of linear states live in their own table / hash, written and read with their records. */
  protected override readonly storesChunks = true;
  /** The key prefix in use. */
  readonly prefix: string;
  /** The client commands go through: the caller's, or one created from the URL. */
  protected readonly client: RedisClient;
  readonly #keys: KeyLayout;
  /** Set when this instance created the client, and so must quit it. */
  readonly #owned: Redis | undefined;
  /** The database the URL names (0 when none, or when the client is the caller's). */
  readonly #db: number;
  readonly #create: boolean;
  /** The layout version this instance writes: single-node and cluster layouts differ. */
  readonly #format: string;
  /** Per bucket: its five index keys, the put script's KEYS. */
  readonly #indexKeys: string[][];
  /** Per bucket: what a put script call's ARGV starts with (the key prefix, the bucket's hash tag). */
  readonly #scriptHead: RedisArg[][];
  readonly #batches = new PutBatches((bucket, puts) => this.#sendPuts(bucket, puts));

  /**
   * @param urlOrClient a `redis://` or `rediss://` URL (the checkpointer creates a client and `close()`
   *   quits it), or an ioredis client (it stays yours: `close()` leaves it open).
   */
  constructor(urlOrClient: string | RedisClient, options: RedisCheckpointerOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new InvalidArgumentError(`${flowPrefix('redis')}RedisCheckpointer options must be an object`);
    }
    super(options);
    if (options.create !== undefined && typeof options.create !== 'boolean') {
      throw new InvalidArgumentError(
        `${flowPrefix('redis')}RedisCheckpointer option create must be a boolean`,
      );
    }
    this.#create = options.create ?? true;
    if (typeof urlOrClient === 'string') {
      const store = parseStoreUrl(urlOrClient);
      if (store.prefix !== undefined && options.prefix !== undefined && store.prefix !== options.prefix) {
        throw new InvalidArgumentError(
          `${flowPrefix('redis')}the URL says prefix ${JSON.stringify(store.prefix)} but options say ${JSON.stringify(options.prefix)}`,
        );
      }
      // Only undefined means "use the default"; null or '' are invalid prefixes, not defaults.
      this.#keys = keyLayout(options.prefix === undefined ? (store.prefix ?? 'flow') : options.prefix);
      this.#owned = createClient(store.url);
      this.client = this.#owned;
      this.#db = store.db;
    } else {
      assertClient(urlOrClient);
      this.#db = 0;
      this.#keys = keyLayout(options.prefix === undefined ? 'flow' : options.prefix, {
        cluster: isCluster(urlOrClient),
      });
      this.client = urlOrClient;
    }
    this.prefix = this.#keys.prefix;
    const buckets = Array.from({ length: this.#keys.buckets }, (_, bucket) => bucket);
    this.#indexKeys = buckets.map((bucket) => {
      const { all, running, interrupted, done, failed } = this.#keys.index(bucket);
      return [all, running, interrupted, done, failed];
    });
    this.#scriptHead = buckets.map((bucket) => [`${this.prefix}:`, this.#keys.tag(bucket)]);
    this.#format =
      this.#keys.buckets === 1 ? FORMAT_VERSION : `${FORMAT_VERSION}-cluster-${this.#keys.buckets}`;
  }

  protected override locate(thread: string, step: number): string {
    return `key ${JSON.stringify(this.#keys.checkpoints(thread))} step ${step}`;
  }

  /**
   * Whether the prefix holds a store (`setup()` ran on it), without creating one. Resolves false for a prefix
   * nothing was ever written under; rejects with `StorageError` when Redis cannot be reached.
   */
  async exists(): Promise<boolean> {
    if (this.closed) throw new StorageError(`${flowPrefix('redis')}the checkpointer is closed`);
    try {
      await this.selectDatabase();
      const format = this.#keys.format;
      // Reads only: with '0' and a version no stored one can equal, the script neither creates nor upgrades.
      return (await this.call(INIT, [format], [this.#format, '0', 'none'])) !== null;
    } catch (error) {
      if (isFlowError(error)) throw error;
      throw new StorageError(`${flowPrefix('redis')}exists failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  protected async initialize(): Promise<void> {
    const client = this.client;
    await this.selectDatabase();
    const init = () => this.call(INIT, [this.#keys.format], [this.#format, this.#create ? '1' : '0']);
    // A cluster knows its primaries once connected, and every one needs the scripts (a call runs on the one
    // owning its keys' slot): INIT goes first there, and connects it.
    const found = isCluster(client) ? await init() : undefined;
    const targets: Pick<RedisClient, 'script'>[] = isCluster(client) ? client.nodes('master') : [client];
    await Promise.all(
      targets.flatMap((target) => SCRIPTS.map((script) => target.script('LOAD', script.body))),
    ).catch((error: unknown) => {
      throw explainFailure(client, error);
    });
    await this.#checkFormat(await this.#upgrade(found === undefined ? await init() : found));
  }

  /** The layouts setup() moves to this one: the cluster form of each (layout 3 was the first to have one). */
  #earlierFormats(): string[] {
    if (this.#keys.buckets === 1) return EARLIER_FORMAT_VERSIONS;
    return ['6', '5', '4', '3'].map((v) => `${v}-cluster-${this.#keys.buckets}`);
  }

  /**
   * Moves a prefix of an earlier layout to this one: rewrites every bucket's index members unless they carry
   * summaries already (idempotent, so processes may race here), then records this layout if the earlier one still is. Answers the layout stored.
   */
  async #upgrade(found: unknown): Promise<unknown> {
    const from = this.#earlierFormats().find((v) => v === String(found));
    if (found === null || from === undefined) return found;
    const keys = this.#keys;
    const summarized = SUMMARIZED_INDEXES.includes(from.split('-')[0]!);
    for (let bucket = 0; bucket < keys.buckets && !summarized; bucket++) {
      const { all, running, interrupted, done, failed } = keys.index(bucket);
      await this.call(UPGRADE_INDEXES, [all, running, interrupted, done, failed], [keys.headPrefix(bucket)]);
    }
    return this.call(INIT, [keys.format], [this.#format, '0', from]);
  }

  async #checkFormat(found: unknown): Promise<void> {
    if (found === null) {
      throw new StorageError(
        `${flowPrefix('redis')}no store under prefix ${JSON.stringify(this.prefix)} (opened with create: false)`,
      );
    }
    if (String(found) !== this.#format) {
      throw new StorageError(
        `${flowPrefix('redis')}keys under prefix ${JSON.stringify(this.prefix)} use layout version ${String(found)}; ` +
          `this version of @flow/checkpoint-redis reads version ${this.#format}`,
      );
    }
  }

  /** Checks the URL's database exists on the server, so no write lands in database 0 instead. */
  private async selectDatabase(): Promise<void> {
    if (this.#owned !== undefined && this.#db !== 0) await selectDatabase(this.#owned, this.#db);
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

  async #put(
    record: CheckpointRecord,
    ifRevision: number | undefined,
    writes: WriteRecord[],
  ): Promise<number> {
    const keys = this.#keys;
    const thread = record.thread;
    // A small state rides along as a script argument; a large one is SET first in a MULTI of its own, since
    // Redis copies script arguments into Lua (see keys.ts). The same goes for the put's new chunks, all
    // together: small ones are arguments, large ones are HSETNX'd in the MULTI before the script.
    const inline = record.state.length <= INLINE_STATE_LIMIT;
    const chunks = record.chunks ?? [];
    let chunkChars = 0;
    for (const chunk of chunks) chunkChars += chunk.data.length;
    const chunksInline = chunkChars <= INLINE_STATE_LIMIT;
    const args: RedisArg[] = [
      thread,
      record.step,
      ifRevision ?? '',
      packStep(record, inline ? 's' : 'k', (ifRevision ?? 0) + 1),
      statusOf(record),
      threadSummaryOf(record),
      chunksInline ? chunks.length : 0,
      writes.length,
    ];
    if (chunksInline) for (const chunk of chunks) args.push(chunk.id, chunk.data);
    for (const w of writes) args.push(writeField(w), w.value);
    const bucket = keys.bucketOf(thread);
    let reply: PutReply;
    if (inline && chunksInline) reply = await this.#batches.put(bucket, args);
    else {
      const prelude: QueuedCommand[] = [];
      if (!inline) prelude.push(['set', keys.incoming(thread), record.state]);
      const staged = chunksInline ? [] : chunks;
      for (const chunk of staged) prelude.push(['hsetnx', keys.chunks(thread), chunk.id, chunk.data]);
      const ran = await runScriptInMulti(this.client, prelude, PUT, this.#indexKeys[bucket]!, [
        ...this.#scriptHead[bucket]!,
        ...args,
      ]);
      const flat = ran.reply as unknown[];
      reply = [flat[0] as number, flat[1] as number | string];
      if (reply[0] !== 1)
        await this.#unstage(thread, staged, ran.prelude.slice(prelude.length - staged.length));
    }
    const [written, answer] = reply;
    if (written === 1) return Number(answer);
    if (written === 2) throw new MissingChunkError({ thread, id: String(answer), backend: this.backend });
    if (written === 3) throw new ReplyError(String(answer));
    throw new CheckpointConflict({
      thread: record.thread,
      step: record.step,
      expected: ifRevision ?? 0,
      actual: Number(answer),
      backend: this.backend,
    });
  }

  /** One put script call for puts of one bucket (see `PutBatches`). */
  #sendPuts(bucket: number, puts: readonly (readonly RedisArg[])[]): Promise<unknown> {
    const args: RedisArg[] = [...this.#scriptHead[bucket]!];
    for (const put of puts) for (const arg of put) args.push(arg);
    return this.call(PUT, this.#indexKeys[bucket]!, args);
  }

  /**
   * After a put that wrote nothing (a conflict, a missing ref), removes the chunks its MULTI stored (HSETNX
   * answered 1): ids are new with each put, so no record references them. Should this fail, they are garbage
   * that the next prune collects, never a dangling ref.
   */
  async #unstage(thread: string, staged: readonly ChunkRecord[], replies: readonly unknown[]): Promise<void> {
    const added = staged.filter((_, i) => replies[i] === 1).map((chunk) => chunk.id);
    if (added.length > 0) await this.client.hdel(this.#keys.chunks(thread), ...added).catch(() => {});
  }

  protected override async writeWrites(thread: string, step: number, writes: WriteRecord[]): Promise<void> {
    const keys = this.#keys;
    await this.call(
      WRITES,
      [keys.writes(thread, step), keys.writeSteps(thread)],
      [step, ...writeArgs(writes)],
    );
  }

  protected override async readWrites(thread: string, step: number): Promise<WriteRecord[]> {
    const reply = await this.call(READ_WRITES, [this.#keys.writes(thread, step)], []);
    try {
      return decodeWrites(reply).sort(compareWrites);
    } catch (error) {
      throw this.corrupt(`key ${JSON.stringify(this.#keys.writes(thread, step))}`, error);
    }
  }

  protected override async writeLease(
    thread: string,
    lease: LeaseRecord,
    replace: string | undefined,
  ): Promise<LeaseResult> {
    const args = [lease.owner, lease.host, lease.pid, lease.ttlMs, replace ?? ''];
    const [taken, ...fields] = (await this.call(
      ACQUIRE_LEASE,
      [this.#keys.lease(thread)],
      args,
    )) as unknown[];
    const found = decodeLease(thread, fields) as Lease;
    return taken === 1 ? { acquired: true, lease: found } : { acquired: false, holder: found };
  }

  protected override async extendLease(thread: string, owner: string, ttlMs: number): Promise<boolean> {
    return (await this.call(RENEW_LEASE, [this.#keys.lease(thread)], [owner, ttlMs])) === 1;
  }

  protected override async dropLease(thread: string, owner: string): Promise<void> {
    await this.call(RELEASE_LEASE, [this.#keys.lease(thread)], [owner]);
  }

  protected override async readLease(thread: string): Promise<Lease | undefined> {
    return decodeLease(thread, await this.call(READ_LEASE, [this.#keys.lease(thread)], []));
  }

  protected async readRecord(
    thread: string,
    step: number | undefined,
  ): Promise<CheckpointRecord | undefined> {
    if (step !== undefined) {
      const [record] = await this.readRange(thread, String(step), String(step), 1);
      return record;
    }
    const keys = this.#keys;
    const [checkpoints, , head] = threadKeys(keys, thread);
    const reply = await this.call(
      READ_LATEST,
      [checkpoints, keys.chunks(thread), head],
      [keys.statePrefix(thread), thread],
    );
    if (typeof reply !== 'string') return this.decodeReply(thread, reply)[0];
    // The usual step, `<step> <packed field>` (see READ_LATEST).
    const cut = reply.indexOf(' ');
    return this.decodeReply(thread, [[reply.slice(0, cut), reply.slice(cut + 1), false], []])[0];
  }

  protected readRecords(thread: string, opts: ListOptions): Promise<CheckpointRecord[]> {
    if (opts.limit === 0) return Promise.resolve([]);
    const max = opts.beforeStep === undefined ? '+inf' : `(${opts.beforeStep}`;
    return this.readRange(thread, max, '-inf', opts.limit ?? -1);
  }

  protected async readThreads(opts: ListThreadsOptions): Promise<ThreadInfo[]> {
    if (opts.limit === 0) return [];
    const keys = this.#keys;
    const status = opts.status ?? 'all';
    const min = opts.after === undefined ? '-' : afterBound(opts.after);
    const limit = opts.limit ?? -1;
    // One bucket on a single node; on a cluster, a page from every bucket, merged: each bucket's page holds
    // its first `limit` ids after `after`, so the merged first `limit` are the store's. A member sorts as
    // its thread id does (U+0000 follows the id), so members compare as ids.
    const pages = await Promise.all(
      Array.from({ length: keys.buckets }, (_, bucket) =>
        this.client.zrangebylex(keys.index(bucket)[status], min, '+', 'LIMIT', 0, limit),
      ),
    ).catch((error: unknown) => {
      throw explainFailure(this.client, error);
    });
    let members = pages.length === 1 ? pages[0]! : pages.flat().sort(compareThreadIds);
    if (limit !== -1 && members.length > limit) members = members.slice(0, limit);
    const threads: ThreadInfo[] = new Array(members.length);
    for (let i = 0; i < members.length; i++) {
      const member = members[i]!;
      const cut = member.indexOf('\u0000');
      try {
        if (cut < 1) throw new UnreadableThreadSummary('an index member lacks its thread summary');
        threads[i] = threadInfoFromSummary(member.slice(0, cut), member.slice(cut + 1));
      } catch (error) {
        if (!(error instanceof UnreadableThreadSummary)) throw error;
        const thread = cut < 1 ? member : member.slice(0, cut);
        const where = `key ${JSON.stringify(keys.index(keys.bucketOf(thread))[status])} thread ${JSON.stringify(thread)}`;
        throw new CorruptCheckpointError(where, error.message, { backend: this.backend });
      }
    }
    return threads;
  }

  protected async removeThread(thread: string): Promise<number> {
    const k = this.#keys;
    const keys = [
      ...threadKeys(k, thread),
      ...indexKeys(k, thread),
      k.writeSteps(thread),
      k.lease(thread),
      k.chunks(thread),
      k.stepBlocks(thread),
    ];
    const args = [thread, k.statePrefix(thread), k.writesPrefix(thread), k.stepBlockPrefix(thread)];
    return Number(await this.call(DELETE, keys, args));
  }

  protected async removeCheckpoints(thread: string, bounds: NormalizedPruneBounds): Promise<number> {
    const [checkpoints, steps] = threadKeys(this.#keys, thread);
    const olderThan = bounds.olderThan === undefined ? '' : Date.parse(bounds.olderThan);
    const args = [
      bounds.beforeStep ?? '',
      olderThan,
      this.#keys.statePrefix(thread),
      thread,
      this.#keys.writesPrefix(thread),
      this.#keys.stepBlockPrefix(thread),
    ];
    const keys = [
      checkpoints,
      steps,
      this.#keys.writeSteps(thread),
      this.#keys.chunks(thread),
      this.#keys.stepBlocks(thread),
    ];
    return Number(await this.call(PRUNE, keys, args));
  }

  protected async release(): Promise<void> {
    const client = this.#owned;
    if (client === undefined) return;
    if (client.status !== 'ready') {
      // Not connected (never used, connecting or between reconnect attempts): nothing to flush.
      client.disconnect();
      return;
    }
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    // QUIT lets replies to commands already sent arrive first; the server then closes the socket.
    await client.quit().catch(() => client.disconnect());
    await ended;
  }

  private async readRange(
    thread: string,
    max: string,
    min: string,
    limit: number,
  ): Promise<CheckpointRecord[]> {
    const keys = this.#keys;
    const [checkpoints, steps, head] = threadKeys(keys, thread);
    const reply = await this.call(
      READ,
      [checkpoints, steps, keys.chunks(thread), head, keys.stepBlocks(thread)],
      [max, min, limit, keys.statePrefix(thread), thread, keys.stepBlockPrefix(thread)],
    );
    return this.decodeReply(thread, reply);
  }

  /** The records of a READ or READ_LATEST reply. */
  private decodeReply(thread: string, reply: unknown): CheckpointRecord[] {
    const [rows, chunks] = reply as [unknown[], unknown[]];
    const records = groups(rows, 7).map((row) => {
      try {
        return decodeRow(thread, row);
      } catch (error) {
        throw this.corrupt(this.locate(thread, Number(row[0])), error);
      }
    });
    return attachChunks(records, chunks);
  }

  private corrupt(location: string, error: unknown): unknown {
    if (!(error instanceof UnreadableEntry)) return error;
    return new CorruptCheckpointError(location, error.message, { backend: this.backend });
  }

  private call(script: LuaScript, keys: readonly string[], args: readonly RedisArg[]): Promise<unknown> {
    return runScript(this.client, script, keys, args);
  }
}

/**
 * The `ZRANGEBYLEX` lower bound of the ids after `after`. Every member of thread `after` is `after` NUL …, so
 * `[after` U+0001 is above all of them and at or below every member of a greater id (no id holds U+0000). No id
 * holds U+0000, so the ids after "ab\u0000c" are exactly the ids after "ab": cutting at the first one keeps the
 * meaning.
 */
function afterBound(after: string): string {
  const nul = after.indexOf('\u0000');
  return `[${nul === -1 ? after : after.slice(0, nul)}\u0001`;
}
