import { randomUUID } from 'node:crypto';
import {
  type Checkpoint,
  type Checkpointer,
  FlowError,
  flowPrefix,
  InvalidArgumentError,
  type ListThreadsOptions,
  type ThreadInfo,
} from '@flow/core';
import { AlreadyResumed, type PendingInterrupt, type RunResult, ThreadNotFound } from '@flow/graph';
import { Command } from '@langchain/langgraph';
import type { Breakpoints } from './breakpoints.js';
import { FlowSaver } from './flow-saver.js';
import { factsOf } from './record.js';
import { waitingInterrupts } from './status.js';
import { parseFlowThread } from './thread-key.js';

const P = flowPrefix('langgraph');
/** How long a resume holds the thread's lease; renewed while LangGraph runs. */
const LEASE_MS = 30_000;

/** What `servedGraph` needs of a compiled LangGraph.js graph. */
export interface LangGraphApp extends Breakpoints {
  checkpointer?: unknown;
  invoke(input: unknown, config: object): Promise<unknown>;
  getState(config: object): Promise<{ values: unknown }>;
}

/** An interrupt as the control plane lists it: LangGraph's interrupt id to answer with, the node, the question. */
export type ServedInterrupt = PendingInterrupt;
/** A run's result, in the shape @flow's engine answers it. */
export type ServedResult = RunResult<Record<string, unknown>>;

/** A LangGraph.js graph as `@flow/server` serves it: its runs, their questions, and answers to them. */
export interface ServedLangGraph {
  readonly checkpointer: Checkpointer;
  invoke(input: unknown, options?: { thread?: string }): Promise<ServedResult>;
  resume(
    thread: string,
    options?: { answer?: unknown; interrupt?: string; patch?: Record<string, unknown> },
  ): Promise<ServedResult>;
  getState(thread: string): Promise<Checkpoint | undefined>;
  history(thread: string, options?: { beforeStep?: number; limit?: number }): Promise<Checkpoint[]>;
  interruptsOf(cp: Checkpoint): Promise<ServedInterrupt[]>;
  /** The store's threads that are LangGraph runs: every one but a subgraph's namespace. */
  listRuns(opts?: ListThreadsOptions): Promise<ThreadInfo[]>;
}

/** Pages `listRuns` reads of the store. */
const PAGE = 64;

/** Whether the record is a static breakpoint's stop (no question waits; resumed without an answer). */
function isBreakpoint(cp: Checkpoint): boolean {
  return cp.meta.interruptBefore === true || cp.meta.interruptAfter === true;
}

/**
 * A compiled LangGraph.js graph on a `FlowSaver`, for `createHandler({ graphs: { name: servedGraph(app) } })`:
 * the server lists its runs, shows each `interrupt()` question with LangGraph's interrupt id, and answers it
 * with `Command({ resume })`. Of answers racing for one question, one runs it and the others are refused
 * (`ALREADY_RESUMED`): a resume holds the thread's @flow lease. Static breakpoints of the graph show as
 * interrupted; such a run goes on when resumed without an answer.
 */
export function servedGraph(app: LangGraphApp): ServedLangGraph {
  const saver = app?.checkpointer;
  if (!(saver instanceof FlowSaver)) {
    throw new InvalidArgumentError(
      `${P}servedGraph needs a graph compiled with { checkpointer: new FlowSaver(store) }`,
    );
  }
  saver.setBreakpoints({ interruptBefore: app.interruptBefore, interruptAfter: app.interruptAfter });
  const store = saver.checkpointer;
  /** LangGraph's config of a @flow thread: from its id, or from its record when the id is a hash. */
  const configOf = (thread: string, cp?: Checkpoint) => {
    const facts = cp === undefined ? undefined : factsOf(cp);
    const parsed =
      parseFlowThread(thread) ??
      (facts === undefined ? undefined : { threadId: facts.thread_id, ns: facts.checkpoint_ns });
    if (parsed === undefined || parsed.ns !== '') {
      throw new InvalidArgumentError(
        `${P}thread ${JSON.stringify(thread)} is not the root of a LangGraph thread`,
      );
    }
    return { configurable: { thread_id: parsed.threadId } };
  };

  /** Whether a @flow thread is a run: not the namespace of a LangGraph subgraph (read from a hashed id's record). */
  async function isRun(thread: string): Promise<boolean> {
    const parsed = parseFlowThread(thread);
    if (parsed !== undefined) return parsed.ns === '';
    const cp = await store.get(thread);
    return cp === undefined || (factsOf(cp)?.checkpoint_ns ?? '') === '';
  }

  async function listRuns(opts: ListThreadsOptions = {}): Promise<ThreadInfo[]> {
    const limit = opts.limit ?? Number.POSITIVE_INFINITY;
    const runs: ThreadInfo[] = [];
    if (limit <= 0) return runs;
    let after = opts.after;
    for (;;) {
      const page = await store.listThreads({ after, limit: PAGE, status: opts.status });
      for (const info of page) {
        if (!(await isRun(info.thread))) continue;
        runs.push(info);
        if (runs.length >= limit) return runs;
      }
      if (page.length < PAGE) return runs;
      after = page[page.length - 1]?.thread;
    }
  }

  async function interruptsOf(cp: Checkpoint): Promise<ServedInterrupt[]> {
    if (!cp.interrupted || isBreakpoint(cp)) return [];
    // LangGraph.js 1.x gives every interrupt an id; one without (an older writer) cannot be answered by id.
    return waitingInterrupts(await store.getWrites(cp.thread, cp.step), cp.next).flatMap((w) =>
      w.id === null ? [] : [{ id: w.id, node: w.node ?? cp.interruptNode ?? '', payload: w.payload }],
    );
  }

  async function resultOf(thread: string): Promise<ServedResult> {
    const cp = await store.get(thread);
    if (cp === undefined) throw new ThreadNotFound(thread);
    if (cp.error !== null) {
      const failed = new FlowError(
        'NODE_FAILED',
        `${P}thread ${JSON.stringify(thread)}: ${cp.error.message}`,
      );
      throw Object.assign(failed, { node: cp.error.node });
    }
    const state = (await app.getState(configOf(thread, cp))).values as Record<string, unknown>;
    if (!cp.interrupted) return { thread, status: 'done', state, step: cp.step };
    const interrupts = await interruptsOf(cp);
    const first = interrupts[0] ?? {
      id: null,
      node: cp.interruptNode ?? '',
      payload: cp.interruptPayload,
    };
    return { thread, status: 'interrupted', state, step: cp.step, interrupt: first, interrupts };
  }

  /** Runs `work` holding the thread's lease: a second resumer finds it held and is refused. */
  async function claimed<T>(thread: string, step: number, work: () => Promise<T>): Promise<T> {
    const owner = `langgraph-${randomUUID()}`;
    const lease = await store.acquireLease(thread, { owner, ttlMs: LEASE_MS });
    if (lease === undefined) throw new AlreadyResumed(thread, step, 'another resumer is answering it');
    const renew = setInterval(() => {
      store.renewLease(thread, { owner, ttlMs: LEASE_MS }).catch(() => {});
    }, LEASE_MS / 3);
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await store.releaseLease(thread, owner).catch(() => {});
    }
  }

  return {
    checkpointer: store,
    async invoke(input, options = {}) {
      const thread = options.thread ?? randomUUID();
      try {
        await app.invoke(input, configOf(thread));
      } catch (error) {
        // A node that threw is stored as the run's error; resultOf names it.
        if ((await store.get(thread))?.error == null) throw error;
      }
      return resultOf(thread);
    },
    async resume(thread, options = {}) {
      const { answer, interrupt: id, patch } = options;
      const latest = await store.get(thread);
      if (latest === undefined) throw new ThreadNotFound(thread);
      const pending = await interruptsOf(latest);
      const breakpoint = latest.interrupted && isBreakpoint(latest);
      if (answer !== undefined && breakpoint) {
        throw new InvalidArgumentError(
          `${P}thread ${JSON.stringify(thread)} stopped at a breakpoint of node ${JSON.stringify(latest.interruptNode)}: no interrupt() waits for an answer; resume it without one`,
        );
      }
      if ((answer !== undefined || id !== undefined) && !latest.interrupted) {
        throw new AlreadyResumed(
          thread,
          latest.step,
          'no interrupt is waiting (answered already, or the run moved on)',
        );
      }
      const target = id === undefined ? pending[0] : pending.find((p) => p.id === id);
      if (id !== undefined && target === undefined) {
        throw new AlreadyResumed(thread, latest.step, `interrupt ${JSON.stringify(id)} is no longer pending`);
      }
      return claimed(thread, latest.step, async () => {
        // Another resumer may have finished between the read above and the claim.
        const now = await store.get(thread);
        if (now?.step !== latest.step || now.revision !== latest.revision) {
          throw new AlreadyResumed(thread, latest.step, 'another resumer answered it first');
        }
        const resume =
          target === undefined
            ? undefined
            : pending.length > 1 && target.id !== null
              ? { [target.id]: answer }
              : answer;
        const input =
          resume === undefined && patch === undefined
            ? null
            : new Command({
                ...(resume === undefined ? {} : { resume }),
                ...(patch === undefined ? {} : { update: patch }),
              });
        try {
          await app.invoke(input, configOf(thread, now));
        } catch (error) {
          if ((await store.get(thread))?.error == null) throw error;
        }
        return resultOf(thread);
      });
    },
    getState: (thread) => store.get(thread),
    history: (thread, options) => store.list(thread, options),
    interruptsOf,
    listRuns,
  };
}
