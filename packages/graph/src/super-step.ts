import { InvalidArgumentError, isFlowError } from '@flow/core';
import { onAbort } from './abort-relay.js';
import { GRAPH, NodeError, NodeTimeout, RunCancelled } from './errors.js';
import type { GraphSpec } from './graph-spec.js';
import {
  asyncContextEnabled,
  callInScope,
  contextMisses,
  enableAsyncContext,
  isAsyncContextNeeded,
  type NodeScope,
  suspend,
} from './interrupt.js';
import { type Ledger, taskKey, UPDATE } from './ledger.js';
import { retryDelay } from './node-options.js';
import { idempotencyKey } from './stable-id.js';
import type { NodeContext, State } from './types.js';

/** An `interrupt()` call that suspended a node: which node, its position among the node's calls, its payload. */
export interface NodeInterrupt {
  readonly node: string;
  readonly position: number;
  readonly payload: unknown;
}

/** What one super-step produced: every node's update (frontier order), or the interrupts that stopped it. */
export type StepOutcome =
  | { readonly kind: 'updates'; readonly updates: readonly unknown[] }
  | { readonly kind: 'interrupt'; readonly interrupts: readonly NodeInterrupt[] };

/** Where and what a super-step runs. */
export interface SuperStep<S extends State> {
  readonly spec: GraphSpec<S>;
  readonly thread: string;
  /** The step of the checkpoint the nodes read. */
  readonly step: number;
  readonly state: S;
  readonly frontier: readonly string[];
  /** Whether the graph has a checkpointer (an interrupt needs one). */
  readonly durable: boolean;
  /** The step the super-step began at (its frontier's checkpoint): what ids and idempotency keys derive from. */
  readonly superStep: number;
  /** What the super-step has stored: completed updates, task values, answers. */
  readonly ledger: Ledger;
  /** The call's `signal`: aborting it cancels the super-step. */
  readonly signal: AbortSignal | undefined;
}

/** One run of one node. */
type Attempt =
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'interrupt'; readonly position: number; readonly payload: unknown }
  | { readonly kind: 'error'; readonly error: unknown; readonly attempts: number }
  /** Storing the node's update failed: the run rejects with this error itself. */
  | { readonly kind: 'fatal'; readonly error: unknown };

const NO_ANSWERS: readonly unknown[] = Object.freeze([]);
/** The `ctx.signal` of a node that has no timeout, in a call without a signal: it never aborts. */
const NEVER: AbortSignal = new AbortController().signal;

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function scopeOf<S extends State>(run: SuperStep<S>, node: string): NodeScope {
  const answers = run.ledger.answers(node) ?? NO_ANSWERS;
  return { node, durable: run.durable, answers, calls: 0, suspended: undefined };
}

const MAX_NAME = 500;

function assertName(name: unknown, what: string): asserts name is string {
  if (
    typeof name !== 'string' ||
    name.length === 0 ||
    name.length > MAX_NAME ||
    name.includes('\u0000') ||
    !name.isWellFormed()
  ) {
    throw new InvalidArgumentError(
      `${GRAPH}${what} must be a string of 1 to ${MAX_NAME} characters without U+0000 or lone surrogates`,
    );
  }
}

/**
 * `ctx.task(name, fn)`: the stored value when this node already ran the task at this super-step, else `fn()`'s
 * value, stored before it is handed back. A name may run once per run of the node. Once the run's `signal` has
 * aborted (its timeout, or the call's cancellation), `fn` is not called: the run's result is dropped and its
 * late task values are not stored, so the side effect would happen again when the node re-runs.
 */
async function runTask<S extends State, T>(
  run: SuperStep<S>,
  node: string,
  signal: AbortSignal,
  used: Set<string>,
  name: string,
  fn: () => T | Promise<T>,
): Promise<T> {
  assertName(name, 'a task name');
  if (typeof fn !== 'function')
    throw new InvalidArgumentError(`${GRAPH}task ${JSON.stringify(name)} needs a function`);
  if (used.has(name)) {
    throw new InvalidArgumentError(
      `${GRAPH}task ${JSON.stringify(name)} already ran in this run of node ${JSON.stringify(node)}: give each task its own name`,
    );
  }
  used.add(name);
  const key = taskKey(name);
  const stored = await run.ledger.take(node, key);
  if (stored !== undefined) return stored.value as T;
  signal.throwIfAborted();
  const value = await fn();
  await run.ledger.record(node, key, value);
  return value;
}

function start<S extends State>(run: SuperStep<S>, scope: NodeScope, signal: AbortSignal): unknown {
  let used: Set<string> | undefined;
  const node = scope.node;
  const ctx: NodeContext = {
    thread: run.thread,
    step: run.step,
    signal,
    interrupt: <A>(payload?: unknown) => suspend(scope, payload) as A,
    task: <T>(name: string, fn: () => T | Promise<T>) => {
      used ??= new Set();
      return runTask(run, node, signal, used, name, fn);
    },
    idempotencyKey: (name: string) => {
      assertName(name, 'an idempotency key name');
      return idempotencyKey(run.thread, run.superStep, node, name);
    },
  };
  const fn = run.spec.nodes.get(scope.node) as (s: S, c: NodeContext) => unknown;
  return callInScope(scope, fn, run.state, ctx);
}

/** The outcome of a run of a node: a suspended call wins over whatever the node did after it. */
function settled(scope: NodeScope, result: { value: unknown } | { error: unknown }): Attempt {
  const { suspended } = scope;
  if (suspended !== undefined && !('error' in result && result.error instanceof NodeTimeout)) {
    return { kind: 'interrupt', position: suspended.position, payload: suspended.payload };
  }
  return 'error' in result
    ? { kind: 'error', error: result.error, attempts: 1 }
    : { kind: 'value', value: result.value };
}

/** Settles with `work`, or rejects with a `NodeTimeout` after `ms` (aborting `controller` first). */
function withTimeout(work: PromiseLike<unknown>, node: string, ms: number, controller: AbortController) {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const timeout = new NodeTimeout(node, ms);
      controller.abort(timeout);
      reject(timeout);
    }, ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

/** One run of a node, with its own `ctx.signal` (aborted by its timeout or the call's signal). */
async function attemptOnce<S extends State>(run: SuperStep<S>, node: string, timeoutMs: number | undefined) {
  const scope = scopeOf(run, node);
  const outer = run.signal;
  const controller = timeoutMs !== undefined || outer !== undefined ? new AbortController() : undefined;
  const abort = () => controller?.abort(outer?.reason);
  let stopWaiting: (() => void) | undefined;
  if (outer?.aborted) abort();
  else if (outer !== undefined) stopWaiting = onAbort(outer, abort);
  try {
    let value = start(run, scope, controller?.signal ?? NEVER);
    if (isPromiseLike(value)) {
      value = await (timeoutMs === undefined
        ? value
        : withTimeout(value, node, timeoutMs, controller as AbortController));
    }
    return settled(scope, { value });
  } catch (error) {
    return settled(scope, { error });
  } finally {
    stopWaiting?.();
  }
}

/** Whether `signal` has aborted (a function, so a check made earlier does not narrow a later one away). */
function isAborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** Resolves after `ms`, or as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      stopWaiting?.();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stopWaiting = signal === undefined ? undefined : onAbort(signal, done);
  });
}

function retryable(retryOn: (error: unknown) => boolean, error: unknown): boolean {
  try {
    return retryOn(error) === true;
  } catch {
    return false;
  }
}

/**
 * Runs a node of a several-node super-step (or one with options) and stores its update as soon as it
 * completes, so a crash or a sibling's failure never makes it run again at this super-step.
 */
async function runAndRecord<S extends State>(
  run: SuperStep<S>,
  node: string,
  record: boolean,
): Promise<Attempt> {
  const result = await runNode(run, node);
  if (result.kind !== 'value') return result;
  try {
    if (record) await run.ledger.record(node, UPDATE, result.value);
    else run.ledger.remember(node, UPDATE, result.value);
  } catch (error) {
    return { kind: 'fatal', error };
  }
  return result;
}

/** Runs a node with its retry policy and timeout. Never rejects: an error comes back as an outcome. */
async function runNode<S extends State>(run: SuperStep<S>, node: string): Promise<Attempt> {
  const settings = run.spec.settings.get(node);
  const policy = settings?.retry;
  for (let attempt = 1; ; attempt++) {
    const result = await attemptOnce(run, node, settings?.timeoutMs);
    if (result.kind !== 'error') return result;
    const last =
      policy === undefined ||
      attempt >= policy.maxAttempts ||
      isAsyncContextNeeded(result.error) ||
      run.signal?.aborted === true ||
      !retryable(policy.retryOn, result.error);
    if (last) return { kind: 'error', error: result.error, attempts: attempt };
    await pause(retryDelay(policy, attempt), run.signal);
    // Cancelled while waiting: the call has rejected with RunCancelled, so no further attempt may start (its
    // code and its tasks' side effects would run after the caller was told the run stopped).
    if (isAborted(run.signal)) return { kind: 'error', error: result.error, attempts: attempt };
  }
}

/** Waits for `work`, or rejects with `RunCancelled` as soon as `signal` aborts. */
function unlessCancelled<T, S extends State>(work: Promise<T>, run: SuperStep<S>): Promise<T> {
  const { signal } = run;
  if (signal === undefined) return work;
  const cancelled = () => new RunCancelled(run.thread, run.step, signal.reason);
  if (signal.aborted) return Promise.reject(cancelled());
  let stopWaiting: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    stopWaiting = onAbort(signal, () => reject(cancelled()));
  });
  return Promise.race([work, aborted]).finally(() => stopWaiting?.());
}

const one = (a: Attempt): Attempt[] => [a];

function runAll<S extends State>(run: SuperStep<S>): Promise<Attempt[]> {
  const { frontier, ledger } = run;
  if (frontier.length === 1) {
    // One node: its update goes straight into the commit (no write of its own); kept in memory for a
    // continuation checkpoint should its router fail (see the run loop).
    const node = frontier[0] as string;
    const stored = ledger.get(node, UPDATE);
    if (stored !== undefined) return Promise.resolve([{ kind: 'value', value: stored.value }]);
    return runNode(run, node).then(one);
  }
  return Promise.all(
    frontier.map((node) => {
      const stored = ledger.get(node, UPDATE);
      if (stored !== undefined) return { kind: 'value', value: stored.value } as const;
      return runAndRecord(run, node, run.durable);
    }),
  );
}

/**
 * What the super-step's results come to: every update, or the interrupts; throws a node's error (the first in
 * frontier order wins over any interrupt). `undefined` when the free `interrupt()` needed async context: it is
 * now on, and the super-step must run again.
 */
function outcomeOf<S extends State>(
  run: SuperStep<S>,
  results: readonly Attempt[],
  canRetry: boolean,
  missed: boolean,
): StepOutcome | undefined {
  for (const r of results) if (r.kind === 'fatal') throw r.error;
  // A free interrupt() found no node while async context was off, and the node went on (it caught the signal):
  // the call must still suspend, so run the super-step again with async context on.
  if (canRetry && missed) {
    enableAsyncContext();
    return undefined;
  }
  let failed = false;
  for (const r of results) if (r.kind !== 'value') failed = true;
  if (!failed) return { kind: 'updates', updates: results.map((r) => (r as { value: unknown }).value) };

  if (canRetry && results.some((r) => r.kind === 'error' && isAsyncContextNeeded(r.error))) {
    enableAsyncContext();
    return undefined;
  }
  const { frontier } = run;
  const interrupts: NodeInterrupt[] = [];
  for (let i = 0; i < frontier.length; i++) {
    const r = results[i] as Attempt;
    const node = frontier[i] as string;
    if (r.kind === 'interrupt') interrupts.push({ node, position: r.position, payload: r.payload });
    if (r.kind !== 'error') continue;
    // interrupt() in a graph without a checkpointer: the run rejects with NoCheckpointer itself.
    if (!run.durable && isFlowError(r.error, 'NO_CHECKPOINTER')) throw r.error;
    throw new NodeError({ node, step: run.step, thread: run.thread, cause: r.error, attempts: r.attempts });
  }
  return { kind: 'interrupt', interrupts };
}

/** Every node of the frontier with its options (retries, timeout, the call's signal), until an outcome. */
async function runEveryNode<S extends State>(run: SuperStep<S>): Promise<StepOutcome> {
  for (;;) {
    // Re-run at most once: with async context already on, the signal cannot come from our interrupt().
    const canRetry = !asyncContextEnabled();
    const misses = contextMisses();
    const results = await unlessCancelled(runAll(run), run);
    const outcome = outcomeOf(run, results, canRetry, contextMisses() !== misses);
    if (outcome !== undefined) return outcome;
  }
}

/**
 * The common case, one node without options or a stored update in a call without a signal: no promise
 * beyond the node's own, and no result objects when it returns an update. (An async function's locals live
 * on the heap across its await, so this one keeps few.)
 */
async function runOnePlain<S extends State>(run: SuperStep<S>): Promise<StepOutcome> {
  const canRetry = !asyncContextEnabled();
  const misses = contextMisses();
  const scope = scopeOf(run, run.frontier[0] as string);
  let attempt: Attempt;
  try {
    let value = start(run, scope, NEVER);
    if (isPromiseLike(value)) value = await value;
    if (scope.suspended === undefined && (!canRetry || contextMisses() === misses))
      return { kind: 'updates', updates: [value] };
    attempt = settled(scope, { value });
  } catch (error) {
    attempt = settled(scope, { error });
  }
  return outcomeOf(run, [attempt], canRetry, contextMisses() !== misses) ?? runEveryNode(run);
}

function isPlain<S extends State>(run: SuperStep<S>): boolean {
  if (run.frontier.length !== 1 || run.signal !== undefined) return false;
  const node = run.frontier[0] as string;
  return !run.spec.settings.has(node) && run.ledger.get(node, UPDATE) === undefined;
}

/**
 * Runs every node of the frontier concurrently and waits for all of them (so none is still running when
 * the call returns, unless the call's signal aborted: then it rejects with `RunCancelled` at once). A node
 * error wins over an interrupt; among several errors, the first in frontier order wins. When the free
 * `interrupt()` needed async context, it is turned on and the whole super-step runs again.
 */
export function runSuperStep<S extends State>(run: SuperStep<S>): Promise<StepOutcome> {
  return isPlain(run) ? runOnePlain(run) : runEveryNode(run);
}
