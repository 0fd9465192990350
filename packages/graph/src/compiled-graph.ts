import { randomUUID } from 'node:crypto';
import {
  assertInteger,
  assertThreadId,
  type Checkpoint,
  type Checkpointer,
  InvalidArgumentError,
  type ListOptions,
  MAX_LEASE_MS,
  statusOf,
} from '@flow/core';
import { applyInput, applyPatch, isObjectLike } from './apply-updates.js';
import { START } from './constants.js';
import { AlreadyResumed, GRAPH, NoCheckpointer, RunCancelled, ThreadBusy, ThreadNotFound } from './errors.js';
import { forkThread } from './fork.js';
import type { GraphSpec } from './graph-spec.js';
import { enableAsyncContext } from './interrupt.js';
import { LeaseKeeper } from './lease-keeper.js';
import { answerKey, PENDING } from './ledger.js';
import { runStatus, superStepOf, waitingCalls } from './pending.js';
import { nextFrontier } from './routing.js';
import { commit, type Engine, type RunStart, runLoop } from './run-loop.js';
import {
  assertFrontierKnown,
  putTargetOf,
  stateVersioningOf,
  versionedCheckpointer,
} from './state-version.js';
import type {
  CompileOptions,
  EnqueueOptions,
  ForkOptions,
  InvokeOptions,
  PendingInterrupt,
  ResumeOptions,
  RunResult,
  State,
  StreamEvent,
} from './types.js';
import {
  poisonError,
  recoveriesOf,
  TAKE_FOR_WORKER,
  type TakeOutcome,
  type WorkerTake,
} from './worker-take.js';

type Events<S extends State> = AsyncGenerator<StreamEvent, RunResult<S>, undefined>;

async function drain<S extends State>(run: Events<S>): Promise<RunResult<S>> {
  let r = await run.next();
  while (!r.done) r = await run.next();
  return r.value;
}

/** The shortest lease: renewed every `leaseMs / 3`, so shorter ones would renew faster than a store answers. */
const MIN_LEASE_MS = 30;

function assertSignal(signal: unknown): asserts signal is AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw new InvalidArgumentError(`${GRAPH}signal must be an AbortSignal`);
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * A runnable graph, made by `StateGraph#compile()`. Every super-step is committed to the checkpointer (when
 * there is one) before the next begins, so a run can be resumed after a crash, an error, or an interrupt.
 */
export class CompiledGraph<S extends State = State> {
  readonly #engine: Engine<S>;

  /** @internal Use `StateGraph#compile()`. */
  constructor(spec: GraphSpec<S>, options: CompileOptions) {
    const { checkpointer, redactor, maxSteps = 100, leaseMs = 30_000 } = options;
    assertInteger(maxSteps, 'maxSteps', 1, Number.MAX_SAFE_INTEGER);
    assertInteger(leaseMs, 'leaseMs', MIN_LEASE_MS, MAX_LEASE_MS);
    if (redactor !== undefined && typeof redactor !== 'function') {
      throw new InvalidArgumentError(
        `${GRAPH}redactor must be a function (see createRedactor in @flow/core)`,
      );
    }
    if (checkpointer !== undefined && typeof checkpointer?.put !== 'function') {
      throw new InvalidArgumentError(`${GRAPH}checkpointer must implement the Checkpointer protocol`);
    }
    if (options.asyncContext === true) enableAsyncContext();
    const versioning = stateVersioningOf(options);
    const versioned = checkpointer && versionedCheckpointer(checkpointer, versioning);
    this.#engine = {
      spec,
      checkpointer: versioned,
      target: versioned && putTargetOf(versioned),
      interruptBefore: new Set(options.interruptBefore ?? []),
      maxSteps,
      redactor,
      leaseMs,
    };
  }

  /** The checkpointer given to `compile()`, if any, as the graph reads it (states brought to `stateVersion`). */
  get checkpointer(): Checkpointer | undefined {
    return this.#engine.checkpointer;
  }

  /**
   * Runs the graph from `input` until it finishes or suspends. On a thread whose run finished, `input` goes
   * through the reducers into the latest state and the steps go on; an unfinished run rejects with `ThreadBusy`.
   */
  invoke(input: Partial<S>, options?: InvokeOptions): Promise<RunResult<S>> {
    return drain(this.#invoke(input, options, false));
  }

  /** Like `invoke`, yielding one event per super-step and per interrupt stop. */
  stream(input: Partial<S>, options?: InvokeOptions): Events<S> {
    return this.#invoke(input, options, true);
  }

  /**
   * Goes on from the latest checkpoint after an interrupt, a node error, `StepLimitExceeded` or a crash.
   * Claims the run by writing the next step first; a resumer that loses the claim rejects with `AlreadyResumed`.
   */
  resume(thread: string, options?: ResumeOptions<S>): Promise<RunResult<S>> {
    return drain(this.#resume(thread, options, false));
  }

  /** Like `resume`, yielding one event per super-step and per interrupt stop. */
  streamResume(thread: string, options?: ResumeOptions<S>): Events<S> {
    return this.#resume(thread, options, true);
  }

  /**
   * Writes a run's first checkpoint (as `invoke` does) and resolves without running a node; a worker, or
   * `resume(thread)`, runs it later. Same rules as `invoke` for an existing thread.
   */
  async enqueue(input: Partial<S>, options?: EnqueueOptions): Promise<{ thread: string }> {
    this.#require('enqueue()');
    if (options != null && !isObjectLike(options as unknown))
      throw new InvalidArgumentError(`${GRAPH}enqueue options must be an object { thread? }`);
    let lease: LeaseKeeper | undefined;
    try {
      const { thread } = await this.#startRun(
        input,
        { thread: options?.thread },
        (l) => {
          lease = l;
        },
        true,
      );
      return { thread };
    } finally {
      await lease?.release();
    }
  }

  /** @internal A worker's take of a running thread (`createWorker`): a counted resume, see worker-take.ts. */
  async [TAKE_FOR_WORKER](thread: string, take: WorkerTake): Promise<TakeOutcome> {
    let lease: LeaseKeeper | undefined;
    try {
      const claimed = await this.#claim(
        thread,
        {},
        (l) => {
          lease = l;
        },
        take,
      );
      if (!('start' in claimed)) return claimed.outcome ?? 'not-running';
      await drain(runLoop(this.#engine, claimed.start, false));
      return 'ran';
    } finally {
      await lease?.release();
    }
  }

  /**
   * Copies the checkpoints `0…step` of `thread` to the new thread `to` (default: a random UUID) and resolves
   * with the copy of `step`; `resume(to, ...)` goes on from there. The source is untouched.
   */
  async fork(thread: string, options: ForkOptions): Promise<Checkpoint<S>> {
    const checkpointer = this.#require('fork()');
    const leaseFor = (to: string) => new LeaseKeeper(checkpointer, to, this.#engine.leaseMs);
    return (await forkThread(checkpointer, thread, options, leaseFor)) as Checkpoint<S>;
  }

  /**
   * The interrupts the thread waits on (`[]` when it is not interrupted, or stopped by `interruptBefore`),
   * with the ids `resume(thread, { answer, interrupt })` takes.
   */
  async interrupts(thread: string): Promise<PendingInterrupt[]> {
    const checkpointer = this.#require('interrupts()');
    const latest = (await checkpointer.get(thread)) as Checkpoint<S> | undefined;
    if (latest === undefined || !latest.interrupted || this.#isBeforeStop(latest)) return [];
    const writes = await checkpointer.getWrites(thread, latest.step);
    return waitingCalls(latest, writes).map(({ id, node, payload }) => ({ id, node, payload }));
  }

  /** The thread's latest checkpoint; `undefined` for an unknown thread. */
  async getState(thread: string): Promise<Checkpoint<S> | undefined> {
    return (await this.#require('getState()').get(thread)) as Checkpoint<S> | undefined;
  }

  /** The thread's checkpoints, newest first (`beforeStep` and `limit` page through them). */
  async history(thread: string, options?: ListOptions): Promise<Checkpoint<S>[]> {
    return (await this.#require('history()').list(thread, options)) as Checkpoint<S>[];
  }

  #require(operation: string): Checkpointer {
    const { checkpointer } = this.#engine;
    if (checkpointer === undefined) throw new NoCheckpointer(operation);
    return checkpointer;
  }

  async *#invoke(input: Partial<S>, options: InvokeOptions | undefined, events: boolean): Events<S> {
    let lease: LeaseKeeper | undefined;
    try {
      const start = await this.#startRun(input, options ?? {}, (l) => {
        lease = l;
      });
      return yield* runLoop(this.#engine, start, events);
    } finally {
      await lease?.release();
    }
  }

  async *#resume(thread: string, options: ResumeOptions<S> | undefined, events: boolean): Events<S> {
    let lease: LeaseKeeper | undefined;
    try {
      const claimed = await this.#claim(thread, options ?? {}, (l) => {
        lease = l;
      });
      if (!('start' in claimed)) return claimed.result as RunResult<S>;
      return yield* runLoop(this.#engine, claimed.start, events);
    } finally {
      await lease?.release();
    }
  }

  /** A lease keeper for `thread` (none without a checkpointer). */
  #leaseFor(thread: string): LeaseKeeper | undefined {
    const { checkpointer, leaseMs } = this.#engine;
    return checkpointer && new LeaseKeeper(checkpointer, thread, leaseMs);
  }

  /** Writes the run's first checkpoint: step 0 for a new thread, or the next step of a finished one. */
  async #startRun(
    input: Partial<S>,
    options: InvokeOptions,
    held: (lease: LeaseKeeper) => void,
    enqueued = false,
  ): Promise<RunStart<S>> {
    if (!isObjectLike(input)) throw new InvalidArgumentError(`${GRAPH}input must be an object of state keys`);
    if (!isObjectLike(options as unknown))
      throw new InvalidArgumentError(`${GRAPH}options must be an object`);
    const thread = options.thread ?? randomUUID();
    assertThreadId(thread);
    const { signal } = options;
    assertSignal(signal);
    if (signal?.aborted) throw new RunCancelled(thread, -1, signal.reason);
    const { checkpointer, spec } = this.#engine;
    const lease = this.#leaseFor(thread);
    if (lease !== undefined) {
      held(lease);
      if (!(await lease.acquire()))
        throw new ThreadBusy(thread, 'is being run by another call (its lease is live)');
      lease.keep();
    }
    const latest = checkpointer && (await checkpointer.get(thread));
    if (latest !== undefined && !latest.done) {
      throw new ThreadBusy(
        thread,
        latest.interrupted ? 'is waiting for an answer: use resume()' : 'has an unfinished run: use resume()',
      );
    }
    const state = latest
      ? applyInput(latest.state as S, input, this.#engine.spec.reducers)
      : ({ ...input } as S);
    const step = latest ? latest.step + 1 : 0;
    const next = await nextFrontier(spec, [START], state, { thread, step });
    // An enqueued run's first checkpoint says so: a worker's first take of it is its first run, not a recovery.
    const meta = enqueued ? { enqueued: true } : undefined;
    await commit(this.#engine.target, { thread, step, state, next, meta }, () => {
      return new ThreadBusy(thread, `had step ${step} written by another run first`);
    });
    return {
      thread,
      step,
      state,
      next,
      skipInterruptBefore: false,
      superStep: step,
      writes: [],
      signal,
      lease,
    };
  }

  /**
   * Checks the resume rules and writes the claim (the next step, `ifRevision: 0`), carrying what the
   * interrupted super-step stored and, for an answer, the answer itself — in the same atomic put.
   */
  async #claim(
    thread: string,
    options: ResumeOptions<S>,
    held: (lease: LeaseKeeper) => void,
    take?: WorkerTake,
  ): Promise<{ start: RunStart<S> } | { result?: RunResult<S>; outcome?: TakeOutcome }> {
    const checkpointer = this.#require('resume()');
    assertThreadId(thread);
    if (!isObjectLike(options as unknown))
      throw new InvalidArgumentError(`${GRAPH}resume options must be an object`);
    const { signal, interrupt: id } = options;
    assertSignal(signal);
    if (id !== undefined && typeof id !== 'string') {
      throw new InvalidArgumentError(`${GRAPH}interrupt must be the id of a pending interrupt (a string)`);
    }
    const latest = (await checkpointer.get(thread)) as Checkpoint<S> | undefined;
    if (latest === undefined) throw new ThreadNotFound(thread);
    if (signal?.aborted) throw new RunCancelled(thread, latest.step, signal.reason);
    // A worker takes running threads only: never an interrupt (that needs its answer) or a failed run.
    if (take !== undefined && statusOf(latest) !== 'running') return { outcome: 'not-running' };
    const answering = options.answer !== undefined || id !== undefined;
    if (options.answer !== undefined && !latest.interrupted) {
      throw new AlreadyResumed(thread, latest.step, `cannot take an answer: ${runStatus(latest)}`);
    }
    const before = latest.interrupted && this.#isBeforeStop(latest);
    if (options.answer !== undefined && before) {
      throw new InvalidArgumentError(
        `${GRAPH}thread ${JSON.stringify(thread)} stopped before node ${JSON.stringify(latest.interruptNode)} ` +
          '(interruptBefore): no interrupt() call is waiting for an answer; resume it without one',
      );
    }
    if (latest.done && options.patch === undefined && id === undefined) {
      return { result: { thread, status: 'done', state: latest.state, step: latest.step } };
    }
    const stored = latest.done ? [] : await checkpointer.getWrites(thread, latest.step);
    const pending = latest.interrupted && !before ? waitingCalls(latest, stored) : [];
    const target = id === undefined ? pending[0] : pending.find((p) => p.id === id);
    if (id !== undefined && target === undefined) {
      throw new AlreadyResumed(
        thread,
        latest.step,
        `interrupt ${JSON.stringify(id)} is no longer pending (answered already, or the run moved on): ${runStatus(latest)}`,
      );
    }
    const lease = this.#leaseFor(thread);
    if (lease !== undefined) {
      held(lease);
      // Without an answer, a live lease means a live run: leave it alone. With one, the claim decides.
      if (!(await lease.acquire()) && !answering) {
        throw new ThreadBusy(thread, 'is being run by another call (its lease is live): it has not crashed');
      }
      lease.keep();
    }
    assertFrontierKnown(this.#engine.spec.nodes, latest);
    const state = applyPatch(latest.state, options.patch);
    const skipInterruptBefore = await this.#pastInterruptBefore(checkpointer, latest);
    const writes = stored.filter((w) => w.key !== PENDING);
    if (target !== undefined) {
      writes.push({ node: target.node, key: answerKey(target.position), value: options.answer });
    }
    if (signal?.aborted) throw new RunCancelled(thread, latest.step, signal.reason);
    const step = latest.step + 1;
    const superStep = latest.done ? step : superStepOf(latest);
    let meta: Record<string, unknown> | undefined = latest.done
      ? undefined
      : skipInterruptBefore
        ? { superStep, pastInterruptBefore: true }
        : { superStep };
    const lostClaim = () => new AlreadyResumed(thread, step, 'another resumer claimed the run first');
    if (take !== undefined) {
      if (take.stopping()) return { outcome: 'stopping' };
      const recoveries = recoveriesOf(latest);
      if (recoveries >= take.maxRecoveries) {
        const error = poisonError(latest.next, recoveries);
        await commit(
          this.#engine.target,
          { thread, step, state, next: latest.next, writes, meta: { ...meta, recoveries }, error },
          lostClaim,
        );
        return { outcome: 'poisoned' };
      }
      // The first take of an enqueued run is no recovery: nothing ran before it.
      const count = latest.meta.enqueued === true ? recoveries : recoveries + 1;
      if (count > 0) meta = { ...meta, recoveries: count };
    }
    await commit(this.#engine.target, { thread, step, state, next: latest.next, writes, meta }, lostClaim);
    return {
      start: {
        thread,
        step,
        state,
        next: latest.next,
        skipInterruptBefore,
        superStep,
        writes,
        signal,
        lease,
        stopping: take?.stopping,
      },
    };
  }

  /**
   * An `interruptBefore` stop: marked so in its `meta`; a record from before the mark is one when it names a
   * listed node with no payload.
   */
  #isBeforeStop(cp: Checkpoint<S>): boolean {
    if (cp.meta.interruptBefore === true) return true;
    if (typeof cp.meta.superStep === 'number') return false;
    return (
      cp.interruptNode !== null &&
      cp.interruptPayload === null &&
      this.#engine.interruptBefore.has(cp.interruptNode)
    );
  }

  /**
   * Whether the frontier of `latest` was already stopped for: it is an interrupt, or the claim that answered
   * one (a crash right after a resume's claim). Otherwise `interruptBefore` applies again.
   */
  async #pastInterruptBefore(checkpointer: Checkpointer, latest: Checkpoint<S>): Promise<boolean> {
    if (latest.interrupted || latest.meta.pastInterruptBefore === true) return true;
    if (this.#engine.interruptBefore.size === 0 || latest.step === 0) return false;
    const prev = await checkpointer.get(latest.thread, latest.step - 1);
    return prev?.interrupted === true && sameList(prev.next, latest.next);
  }
}
