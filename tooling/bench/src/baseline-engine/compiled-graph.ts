import { randomUUID } from 'node:crypto';
import {
  assertInteger,
  assertThreadId,
  type Checkpoint,
  type Checkpointer,
  InvalidArgumentError,
  type ListOptions,
} from '@flow/core';
import { applyInput, applyPatch, isObjectLike } from './apply-updates.js';
import { START } from './constants.js';
import { AlreadyResumed, NoCheckpointer, ThreadBusy, ThreadNotFound } from './errors.js';
import type { GraphSpec } from './graph-spec.js';
import { enableAsyncContext } from './interrupt.js';
import { nextFrontier } from './routing.js';
import { commit, type Engine, type RunStart, runLoop } from './run-loop.js';
import type { CompileOptions, InvokeOptions, ResumeOptions, RunResult, State, StreamEvent } from './types.js';

type Events<S extends State> = AsyncGenerator<StreamEvent, RunResult<S>, undefined>;

async function drain<S extends State>(run: Events<S>): Promise<RunResult<S>> {
  let r = await run.next();
  while (!r.done) r = await run.next();
  return r.value;
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
    const { checkpointer, redactor, maxSteps = 100 } = options;
    assertInteger(maxSteps, 'maxSteps', 1, Number.MAX_SAFE_INTEGER);
    if (redactor !== undefined && typeof redactor !== 'function') {
      throw new InvalidArgumentError('redactor must be a function (see createRedactor in @flow/core)');
    }
    if (checkpointer !== undefined && typeof checkpointer?.put !== 'function') {
      throw new InvalidArgumentError('checkpointer must implement the Checkpointer protocol');
    }
    if (options.asyncContext === true) enableAsyncContext();
    this.#engine = {
      spec,
      checkpointer,
      interruptBefore: new Set(options.interruptBefore ?? []),
      maxSteps,
      redactor,
    };
  }

  /** The checkpointer given to `compile()`, if any. */
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
    const start = await this.#startRun(input, options ?? {});
    return yield* runLoop(this.#engine, start, events);
  }

  async *#resume(thread: string, options: ResumeOptions<S> | undefined, events: boolean): Events<S> {
    const claimed = await this.#claim(thread, options ?? {});
    if (!('start' in claimed)) return claimed.result;
    return yield* runLoop(this.#engine, claimed.start, events);
  }

  /** Writes the run's first checkpoint: step 0 for a new thread, or the next step of a finished one. */
  async #startRun(input: Partial<S>, options: InvokeOptions): Promise<RunStart<S>> {
    if (!isObjectLike(input)) throw new InvalidArgumentError('input must be an object of state keys');
    const thread = options.thread ?? randomUUID();
    assertThreadId(thread);
    const { checkpointer, spec } = this.#engine;
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
    await commit(checkpointer, { thread, step, state, next }, () => {
      return new ThreadBusy(thread, `had step ${step} written by another run first`);
    });
    return { thread, step, state, next, skipInterruptBefore: false, answer: undefined };
  }

  /** Checks the resume rules and writes the claim (the next step, `ifRevision: 0`). */
  async #claim(
    thread: string,
    options: ResumeOptions<S>,
  ): Promise<{ start: RunStart<S> } | { result: RunResult<S> }> {
    const checkpointer = this.#require('resume()');
    assertThreadId(thread);
    if (!isObjectLike(options as unknown)) throw new InvalidArgumentError('resume options must be an object');
    const latest = (await checkpointer.get(thread)) as Checkpoint<S> | undefined;
    if (latest === undefined) throw new ThreadNotFound(thread);
    if (options.answer !== undefined && !latest.interrupted) {
      const why = latest.done ? 'the run has finished' : 'the run is not waiting for an answer';
      throw new AlreadyResumed(thread, latest.step, `cannot take an answer: ${why} (it was resumed already)`);
    }
    if (latest.done && options.patch === undefined) {
      return { result: { thread, status: 'done', state: latest.state, step: latest.step } };
    }
    const state = applyPatch(latest.state, options.patch);
    const skipInterruptBefore = await this.#pastInterruptBefore(checkpointer, latest);
    const node = latest.interruptNode;
    const answer =
      latest.interrupted && node !== null && !this.#isBeforeStop(latest)
        ? { node, value: options.answer }
        : undefined;
    const step = latest.step + 1;
    await commit(checkpointer, { thread, step, state, next: latest.next }, () => {
      return new AlreadyResumed(thread, step, 'another resumer claimed the run first');
    });
    return { start: { thread, step, state, next: latest.next, skipInterruptBefore, answer } };
  }

  /** An `interruptBefore` stop: a listed node, no payload (see the README for the one ambiguity). */
  #isBeforeStop(cp: Checkpoint<S>): boolean {
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
    if (latest.interrupted) return true;
    if (this.#engine.interruptBefore.size === 0 || latest.step === 0) return false;
    const prev = await checkpointer.get(latest.thread, latest.step - 1);
    return prev?.interrupted === true && sameList(prev.next, latest.next);
  }
}
