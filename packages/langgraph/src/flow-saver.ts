import {
  type Checkpointer,
  Checkpoint as FlowCheckpoint,
  type PendingWrite as FlowWrite,
  flowPrefix,
  InvalidArgumentError,
  isFlowError,
  type PutOptions,
} from '@flow/core';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  compareChannelVersions,
  type DeltaChannelHistory,
  getCheckpointId,
  maxChannelVersion,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
} from '@langchain/langgraph-checkpoint';
import { type Breakpoints, stopsAt } from './breakpoints.js';
import { ancestorHistory } from './delta-history.js';
import { matchesFilter } from './filter.js';
import { findStep } from './find-step.js';
import { nextNodes } from './next-nodes.js';
import { loadWrites, sortWrites, toFlowWrites } from './pending-writes.js';
import { factsOf, flowTs, holds, type LangGraphFacts, type LangGraphState, stateOf } from './record.js';
import { changesStatus, statusAfterWrites } from './status.js';
import { loadValue, type StoredValue, storePlain, storeValue } from './stored-value.js';
import { type Known, type ThreadCache, ThreadCaches } from './thread-cache.js';
import { flowThreadOf, namespacePrefixes } from './thread-key.js';

const P = flowPrefix('langgraph');
/** Pages of `list` and `listThreads`. */
const PAGE = 64;
/** Conditional puts a `put` tries before it gives up (each lost one means another writer took the step). */
const MAX_CLAIMS = 100;

/** Options of `FlowSaver`. */
export interface FlowSaverOptions extends Breakpoints {
  /** How LangGraph values become bytes. @default LangGraph's JsonPlusSerializer */
  serde?: SerializerProtocol;
}

interface Where {
  threadId: string;
  ns: string;
  thread: string;
  /** The checkpoint id the config names (for `put`: the parent's). */
  id?: string | undefined;
}

function configured(config: RunnableConfig, op: string): Where {
  const c = config.configurable;
  if (c === undefined || c === null)
    throw new InvalidArgumentError(`${P}${op}: config.configurable is missing`);
  const raw = c.thread_id;
  if (raw === undefined || raw === null || raw === '')
    throw new InvalidArgumentError(`${P}${op}: config.configurable.thread_id is missing`);
  if (typeof raw !== 'string' && typeof raw !== 'number')
    throw new InvalidArgumentError(`${P}${op}: thread_id must be a string, got ${typeof raw}`);
  const ns = c.checkpoint_ns ?? '';
  if (typeof ns !== 'string') throw new InvalidArgumentError(`${P}${op}: checkpoint_ns must be a string`);
  const threadId = String(raw);
  const id = getCheckpointId(config) || undefined;
  return { threadId, ns, thread: threadOf(threadId, ns), id };
}

/** The last (thread_id, namespace) → @flow thread: a graph names the same one in each call of a run. */
let lastThread = { threadId: '', ns: '', thread: flowThreadOf('', '') };

function threadOf(threadId: string, ns: string): string {
  if (lastThread.threadId !== threadId || lastThread.ns !== ns)
    lastThread = { threadId, ns, thread: flowThreadOf(threadId, ns) };
  return lastThread.thread;
}

function knownOf(cp: FlowCheckpoint, facts: LangGraphFacts): Known {
  const state = stateOf(cp);
  return {
    id: facts.checkpoint_id,
    step: cp.step,
    versions: state.checkpoint.channel_versions,
    values: state.values,
    sorted: facts.sorted,
    next: cp.next,
    interrupted: cp.interrupted,
  };
}

/**
 * A LangGraph.js checkpoint saver over any @flow `Checkpointer` (docs/langgraph.md). One LangGraph thread and
 * namespace is one @flow thread, one checkpoint one @flow step; pending writes are @flow per-step writes.
 *
 * @example
 * const saver = new FlowSaver(new SqliteCheckpointer('graphs.db'));
 * const app = graph.compile({ checkpointer: saver });
 */
export class FlowSaver extends BaseCheckpointSaver {
  /** The @flow store underneath; closing it is the caller's. */
  readonly checkpointer: Checkpointer;
  readonly #caches: ThreadCaches;
  #breakpoints: Breakpoints;

  constructor(checkpointer: Checkpointer, options: FlowSaverOptions = {}) {
    super(options.serde);
    if (typeof checkpointer?.put !== 'function' || typeof checkpointer.getWrites !== 'function')
      throw new InvalidArgumentError(`${P}FlowSaver needs a @flow Checkpointer`);
    this.checkpointer = checkpointer;
    this.#caches = new ThreadCaches(checkpointer);
    this.#breakpoints = {
      interruptBefore: options.interruptBefore,
      interruptAfter: options.interruptAfter,
    };
  }

  /**
   * The static breakpoints of the graph this saver stores (`compile({ interruptBefore, interruptAfter })`),
   * so a checkpoint where the graph stops at one is `interrupted` for @flow's views. `servedGraph(app)` sets
   * them from the compiled graph.
   */
  setBreakpoints(breakpoints: Breakpoints): void {
    this.#breakpoints = {
      interruptBefore: breakpoints.interruptBefore,
      interruptAfter: breakpoints.interruptAfter,
    };
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const c = config.configurable;
    if (c?.thread_id === undefined || c.thread_id === null || c.thread_id === '') return undefined;
    const where = configured(config, 'getTuple');
    const cp = where.id === undefined ? await this.#latest(where) : await this.#byId(where, where.id);
    return cp && this.#tuple(cp);
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { filter, before } = options;
    let remaining = options.limit ?? Number.POSITIVE_INFINITY;
    if (remaining <= 0) return;
    const c = config.configurable ?? {};
    const ns: string | undefined = c.checkpoint_ns ?? undefined;
    const beforeId: string | undefined = before?.configurable?.checkpoint_id || undefined;
    const onlyId: string | undefined = c.checkpoint_id || undefined;
    const threadId = c.thread_id === undefined || c.thread_id === null ? undefined : String(c.thread_id);
    if (threadId !== undefined && ns !== undefined && onlyId !== undefined) {
      // One checkpoint: found by id, not by reading the thread.
      const thread = flowThreadOf(threadId, ns);
      const cp = await this.#byId({ threadId, ns, thread }, onlyId);
      if (cp === undefined || (beforeId !== undefined && !(onlyId < beforeId))) return;
      const metadata = (await loadValue(this.serde, stateOf(cp).metadata)) as CheckpointMetadata;
      if (filter === undefined || matchesFilter(metadata, filter)) yield await this.#tuple(cp, metadata);
      return;
    }
    for await (const thread of threadId === undefined ? this.#allThreads() : this.#threadsOf(threadId, ns)) {
      for await (const cp of this.#records(thread)) {
        const facts = factsOf(cp);
        if (facts === undefined) continue; // a @flow run, not a LangGraph thread
        if (threadId !== undefined && facts.thread_id !== threadId) continue;
        if (ns !== undefined && facts.checkpoint_ns !== ns) continue;
        if (onlyId !== undefined && facts.checkpoint_id !== onlyId) continue;
        if (beforeId !== undefined && !(facts.checkpoint_id < beforeId)) continue;
        const metadata = (await loadValue(this.serde, stateOf(cp).metadata)) as CheckpointMetadata;
        if (filter !== undefined && !matchesFilter(metadata, filter)) continue;
        yield await this.#tuple(cp, metadata);
        remaining -= 1;
        if (remaining <= 0) return;
      }
    }
  }

  // put and putWrites are not async functions: each returns one promise of its own work, not a wrapper that
  // awaits it (a promise and a tick less per call, and every promise costs a hook call once LangGraph has turned
  // AsyncLocalStorage on).
  put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    let where: Where;
    try {
      where = configured(config, 'put');
    } catch (error) {
      return Promise.reject(error);
    }
    const cache = this.#caches.of(where.thread);
    // Registered before any await, so writes for this checkpoint that arrive meanwhile wait for it.
    const done = cache.track(this.#put(where, cache, checkpoint, metadata, newVersions));
    cache.putting(checkpoint.id, done);
    const settled = () => {
      if (cache.pending.get(checkpoint.id) === done) cache.pending.delete(checkpoint.id);
    };
    return done.then(
      () => {
        settled();
        return {
          configurable: {
            thread_id: config.configurable?.thread_id,
            checkpoint_ns: where.ns,
            checkpoint_id: checkpoint.id,
          },
        };
      },
      (error: unknown) => {
        settled();
        throw error;
      },
    );
  }

  putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    try {
      const where = configured(config, 'putWrites');
      if (where.id === undefined)
        throw new InvalidArgumentError(`${P}putWrites: config.configurable.checkpoint_id is missing`);
      const cache = this.#caches.of(where.thread);
      const converted = toFlowWrites(this.serde, writes, taskId, taskPath ?? '');
      // The usual call: plain values for a checkpoint this process has stored, and no interrupt or error.
      if (Array.isArray(converted) && !changesStatus(writes)) {
        const target = this.#knownNow(cache, where.id);
        if (target !== undefined && target.interrupted !== true)
          return cache.writes.add(target.step, converted);
      }
      return this.#putWrites(where, cache, where.id, writes, converted);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async deleteThread(threadId: string): Promise<void> {
    const threads: string[] = [];
    for await (const thread of this.#threadsOf(String(threadId), undefined)) threads.push(thread);
    for (const thread of threads) {
      await this.checkpointer.deleteThread(thread);
      this.#caches.forget(thread);
    }
  }

  override async getDeltaChannelHistory(options: {
    config: RunnableConfig;
    channels: string[];
  }): Promise<Record<string, DeltaChannelHistory>> {
    if (options.channels.length === 0) return {};
    const where = configured(options.config, 'getDeltaChannelHistory');
    const target = where.id === undefined ? await this.#latest(where) : await this.#byId(where, where.id);
    return ancestorHistory(this.checkpointer, this.serde, where, target, options.channels);
  }

  /**
   * LangGraph's integer versions, and the padded-string form (`"<32 digits>.<suffix>"`) that some savers
   * write, continued in kind so a thread that started elsewhere keeps increasing versions.
   */
  override getNextVersion(current: number | undefined): number {
    if (typeof current === 'string') {
      const n = Number.parseInt((current as string).split('.')[0] ?? '', 10);
      const next = `${String((Number.isNaN(n) ? 0 : n) + 1).padStart(32, '0')}.${Math.random().toString().slice(2, 18).padEnd(16, '0')}`;
      return next as unknown as number;
    }
    return current === undefined ? 1 : current + 1;
  }

  /** The latest checkpoint of (thread, ns), noted in the cache. */
  async #latest(where: Where): Promise<FlowCheckpoint | undefined> {
    const cache = this.#caches.of(where.thread);
    const cp = await this.checkpointer.get(where.thread);
    if (cp === undefined) {
      cache.latest = null;
      return undefined;
    }
    const facts = this.#facts(cp, where);
    cache.latest = { step: cp.step, id: facts.checkpoint_id, sorted: facts.sorted };
    cache.remember(knownOf(cp, facts));
    return cp;
  }

  /** The record of checkpoint `id`: by the cached step, else by search (docs/langgraph.md#finding-a-checkpoint). */
  async #byId(where: Where, id: string): Promise<FlowCheckpoint | undefined> {
    const cache = this.#caches.of(where.thread);
    const pending = cache.pending.get(id);
    if (pending !== undefined) await pending.catch(() => undefined);
    const step = cache.seen(id)?.step;
    if (step !== undefined) {
      const cp = await this.checkpointer.get(where.thread, step);
      if (cp !== undefined && factsOf(cp)?.checkpoint_id === id) return cp;
    }
    const latest = await this.#latest(where);
    if (latest === undefined) return undefined;
    if (factsOf(latest)?.checkpoint_id === id) return latest;
    const found = await findStep(this.checkpointer, where.thread, latest, id);
    if (found !== undefined) cache.remember(knownOf(found, this.#facts(found, where)));
    return found;
  }

  /** Checkpoint `id` when this process knows it and no put of it is under way, without a promise. */
  #knownNow(cache: ThreadCache, id: string): Known | undefined {
    return cache.pending.has(id) ? undefined : cache.known.get(id);
  }

  /**
   * Where checkpoint `id` is and what a child inherits from it: cached, awaited from a put under way, or read.
   * `waitForPuts`: first let this thread's puts under way settle (see below).
   */
  async #known(
    where: Where,
    cache: ThreadCache,
    id: string,
    waitForPuts: boolean,
  ): Promise<Known | undefined> {
    for (let waited = false; ; ) {
      const pending = cache.pending.get(id);
      if (pending !== undefined) return pending;
      const known = cache.known.get(id);
      if (known !== undefined) return known;
      if (waitForPuts && cache.busy > 0) {
        // LangGraph may write a task's results before it calls `put` for their checkpoint (it chains each put
        // after the one before): wait for that put, or until this thread has none under way, then look again.
        await cache.putOf(id);
        continue;
      }
      const cp = await this.#byId(where, id);
      if (cp !== undefined) return knownOf(cp, this.#facts(cp, where));
      if (!waitForPuts || waited) return undefined;
      // Not stored, and no put under way: under `durability: "exit"` LangGraph writes the tasks' results in the
      // same tick as it asks for their checkpoint's put, which starts a few promise jobs later. Wait a turn of
      // the event loop for that put, then look again.
      waited = true;
      await cache.putOf(id);
    }
  }

  async #put(
    where: Where,
    cache: ThreadCache,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<Known> {
    const values: Record<string, StoredValue> = {};
    const channelValues = checkpoint.channel_values as Record<string, unknown>;
    // Plain JSON values are written without a promise each (see `storePlain`); the serde's in parallel.
    const viaSerde: Promise<void>[] = [];
    for (const ch of Object.keys(newVersions)) {
      if (!(ch in channelValues)) continue;
      const plain = storePlain(this.serde, channelValues[ch]);
      if (plain !== undefined) values[ch] = plain;
      else {
        values[ch] = undefined as unknown as StoredValue; // keeps the channel's place in the record
        viaSerde.push(
          storeValue(this.serde, channelValues[ch]).then((v) => {
            values[ch] = v;
          }),
        );
      }
    }
    if (viaSerde.length > 0) await Promise.all(viaSerde);
    const storedMetadata = storePlain(this.serde, metadata) ?? (await storeValue(this.serde, metadata));
    const parent =
      where.id === undefined
        ? undefined
        : (this.#knownNow(cache, where.id) ?? (await this.#known(where, cache, where.id, false)));
    if (parent !== undefined) {
      // Channels the checkpoint did not change (not in newVersions) keep their value from the parent.
      const versions = checkpoint.channel_versions;
      for (const ch of Object.keys(versions)) {
        if (ch in newVersions || values[ch] !== undefined) continue;
        const version = versions[ch] as number;
        const was = parent.versions[ch];
        const value = parent.values[ch];
        if (value !== undefined && was !== undefined && compareChannelVersions(was, version) === 0)
          values[ch] = value;
      }
    }
    const { channel_values: _values, ...skeleton } = checkpoint;
    const state: LangGraphState = { checkpoint: skeleton, values, metadata: storedMetadata };
    const next = nextNodes(checkpoint);
    const before = stopsAt(checkpoint, this.#breakpoints.interruptBefore, next);
    const after = parent && stopsAt(checkpoint, this.#breakpoints.interruptAfter, parent.next);
    const stop = before ?? after;
    const ts = flowTs(checkpoint.ts);
    const build = (step: number, sorted: boolean) => {
      const langgraph: LangGraphFacts = {
        thread_id: where.threadId,
        checkpoint_ns: where.ns,
        checkpoint_id: checkpoint.id,
        parent_id: where.id ?? null,
        parent_step: parent?.step ?? null,
        sorted,
      };
      if (stop === undefined)
        return new FlowCheckpoint({ thread: where.thread, step, state, next, ts, meta: { langgraph } });
      return new FlowCheckpoint({
        thread: where.thread,
        step,
        state,
        next,
        ts,
        // A static breakpoint: no question waits, the run goes on when resumed without an answer.
        interrupted: true,
        interruptNode: stop,
        interruptPayload: null,
        meta:
          before === undefined ? { interruptAfter: true, langgraph } : { interruptBefore: true, langgraph },
      });
    };
    const known = (step: number, sorted: boolean): Known => ({
      id: checkpoint.id,
      step,
      versions: checkpoint.channel_versions,
      values,
      sorted,
      next,
    });

    const again = cache.seen(checkpoint.id);
    if (again !== undefined) {
      // The same checkpoint again (LangGraph re-puts one on exit): it replaces itself at its step.
      await this.#store(cache, build(again.step, again.sorted));
      const k = known(again.step, again.sorted);
      cache.remember(k);
      return k;
    }
    for (let claim = 0; claim < MAX_CLAIMS; claim++) {
      if (cache.latest === undefined) await this.#latest(where);
      const latest = cache.latest ?? null;
      if (latest !== null && latest.id === checkpoint.id) {
        await this.#store(cache, build(latest.step, latest.sorted));
        const k = known(latest.step, latest.sorted);
        cache.remember(k);
        return k;
      }
      const step = latest === null ? 0 : latest.step + 1;
      const sorted = latest === null ? true : latest.sorted && checkpoint.id > latest.id;
      // Reserved before the write, so another put of this process takes the step after.
      cache.latest = { step, id: checkpoint.id, sorted };
      try {
        await this.#store(cache, build(step, sorted), { ifRevision: 0 });
      } catch (error) {
        if (cache.latest?.id === checkpoint.id) cache.latest = undefined;
        if (isFlowError(error, 'CHECKPOINT_CONFLICT')) {
          cache.latest = undefined; // another writer took the step: read the latest again
          continue;
        }
        throw error;
      }
      const k = known(step, sorted);
      cache.remember(k);
      return k;
    }
    throw new InvalidArgumentError(
      `${P}put on thread ${JSON.stringify(where.threadId)}: ${MAX_CLAIMS} other writers took the next step first`,
    );
  }

  async #putWrites(
    where: Where,
    cache: ThreadCache,
    id: string,
    writes: readonly PendingWrite[],
    converted: FlowWrite[] | Promise<FlowWrite[]>,
  ): Promise<void> {
    const flowWrites = Array.isArray(converted) ? converted : await converted;
    const target = this.#knownNow(cache, id) ?? (await this.#known(where, cache, id, true));
    if (target === undefined) {
      throw new InvalidArgumentError(
        `${P}putWrites: thread ${JSON.stringify(where.threadId)} namespace ${JSON.stringify(where.ns)} has no checkpoint ${JSON.stringify(id)}`,
      );
    }
    await cache.writes.add(target.step, flowWrites);
    // A finished task's writes on an interrupted step may retire its question (parallel ones answered by id).
    if (changesStatus(writes) || target.interrupted === true)
      await statusAfterWrites(this.checkpointer, where.thread, target.step);
  }

  /** Stores a checkpoint, with the thread's held task writes sent in the same tick (see `WriteBatch`). */
  #store(cache: ThreadCache, cp: FlowCheckpoint, opts?: PutOptions): Promise<FlowCheckpoint> {
    cache.writes.flush();
    return this.checkpointer.put(cp, opts);
  }

  /** The tuple LangGraph reads, with the checkpoint's pending writes (and, for old formats, pending sends). */
  async #tuple(cp: FlowCheckpoint, loadedMetadata?: CheckpointMetadata): Promise<CheckpointTuple> {
    const facts = factsOf(cp) as LangGraphFacts;
    const state = stateOf(cp);
    const migrate = state.checkpoint.v < 4 && facts.parent_step !== null;
    const [writes, parentWrites, metadata, loaded] = await Promise.all([
      this.checkpointer.getWrites(cp.thread, cp.step),
      migrate ? this.checkpointer.getWrites(cp.thread, facts.parent_step as number) : undefined,
      loadedMetadata ?? (loadValue(this.serde, state.metadata) as Promise<CheckpointMetadata>),
      Promise.all(Object.entries(state.values).map(async ([ch, v]) => [ch, await loadValue(this.serde, v)])),
    ]);
    const checkpoint: Checkpoint = {
      ...(state.checkpoint as Checkpoint),
      channel_values: Object.fromEntries(loaded),
    };
    if (parentWrites !== undefined) {
      // Checkpoints before format 4 kept pending sends as the parent's writes to the tasks channel.
      const sends = sortWrites(parentWrites).filter((w) => w.stored.c === TASKS);
      checkpoint.channel_values[TASKS] = (await loadWrites(this.serde, sends)).map((w) => w[2]);
      const versions = Object.values(checkpoint.channel_versions);
      checkpoint.channel_versions = {
        ...checkpoint.channel_versions,
        [TASKS]: versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined),
      };
    }
    const configOf = (id: string) => ({
      configurable: { thread_id: facts.thread_id, checkpoint_ns: facts.checkpoint_ns, checkpoint_id: id },
    });
    return {
      config: configOf(facts.checkpoint_id),
      checkpoint,
      metadata,
      parentConfig: facts.parent_id === null ? undefined : configOf(facts.parent_id),
      pendingWrites: await loadWrites(this.serde, sortWrites(writes)),
    };
  }

  /** The facts of a record of (thread, ns); a record of anything else is an error naming the thread. */
  #facts(cp: FlowCheckpoint, where: Where): LangGraphFacts {
    if (!holds(cp, where.threadId, where.ns)) {
      throw new InvalidArgumentError(
        `${P}@flow thread ${JSON.stringify(where.thread)} does not hold LangGraph thread ${JSON.stringify(where.threadId)}` +
          ` namespace ${JSON.stringify(where.ns)} (a @flow run, or another thread of the same hash)`,
      );
    }
    return factsOf(cp) as LangGraphFacts;
  }

  /** The records of a @flow thread, newest first, a page at a time. */
  async *#records(thread: string): AsyncGenerator<FlowCheckpoint> {
    let beforeStep: number | undefined;
    for (;;) {
      const page = await this.checkpointer.list(thread, { beforeStep, limit: PAGE });
      yield* page;
      if (page.length < PAGE) return;
      beforeStep = (page[page.length - 1] as FlowCheckpoint).step;
    }
  }

  /** Every @flow thread in the store. */
  async *#allThreads(): AsyncGenerator<string> {
    let after: string | undefined;
    for (;;) {
      const page = await this.checkpointer.listThreads({ after, limit: PAGE });
      for (const t of page) yield t.thread;
      if (page.length < PAGE) return;
      after = page[page.length - 1]?.thread;
    }
  }

  /** The @flow threads of one LangGraph thread: one namespace, or all of them. */
  async *#threadsOf(threadId: string, ns: string | undefined): AsyncGenerator<string> {
    if (ns !== undefined) {
      yield flowThreadOf(threadId, ns);
      return;
    }
    const seen = new Set<string>([flowThreadOf(threadId, '')]);
    yield flowThreadOf(threadId, '');
    for (const start of namespacePrefixes(threadId)) {
      let after = start;
      for (;;) {
        const page = await this.checkpointer.listThreads({ after, limit: PAGE });
        const inRange = page.filter((t) => t.thread.startsWith(start));
        for (const t of inRange) {
          if (seen.has(t.thread)) continue;
          seen.add(t.thread);
          yield t.thread;
        }
        if (page.length < PAGE || inRange.length < page.length) break;
        after = page[page.length - 1]?.thread as string;
      }
    }
  }
}
