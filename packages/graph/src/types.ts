import type { Checkpointer, Redactor } from '@flow/core';
import type { StateVersionOptions } from './state-version.js';

/** Any object-shaped state. */
export type State = Record<string, any>;

/** Combines the current value of a key with a node's update of it. */
export type Reducer<V> = (current: V, update: V) => V;

/** Reducers by state key; keys without one are replaced by the latest write. */
export type Reducers<S extends State> = { [K in keyof S]?: Reducer<S[K]> };

/** What a node may return: a partial state, or nothing. */
// biome-ignore lint/suspicious/noConfusingVoidType: a node written as a function that returns nothing is valid
export type Update<S extends State> = Partial<S> | undefined | null | void;

/** The second argument of every node. */
export interface NodeContext {
  /** The run's thread id. */
  readonly thread: string;
  /** The step of the checkpoint the node reads; its results land in `step + 1`. */
  readonly step: number;
  /**
   * Suspends the run for a human with `payload` (throws a private signal: do not catch it). On `resume`,
   * the call that suspended returns the answer (`undefined` when none was given).
   */
  interrupt<A = unknown>(payload?: unknown): A;
  /**
   * Aborts when this run of the node must stop: its `timeoutMs` is up, or the call's `signal` aborted. Hand
   * it to `fetch` and other cancellable APIs.
   */
  readonly signal: AbortSignal;
  /**
   * Runs a side effect once per super-step: `fn`'s resolved value is stored before `task` resolves with it,
   * and a re-run of the node at the same super-step (after a crash, a sibling's error, an interrupt) gets
   * the stored value back without calling `fn`. `fn` that throws stores nothing. A name runs once per run of
   * the node (a second `task` with it rejects with `InvalidArgumentError`).
   */
  task<T>(name: string, fn: () => T | Promise<T>): Promise<T>;
  /**
   * A stable string from thread, super-step, node and `name`: the same on every re-run of the node at this
   * super-step. Hand it to APIs that deduplicate, to cover a crash after `fn` ran and before its value was stored.
   */
  idempotencyKey(name: string): string;
}

/** `addNode`'s retry policy. */
export interface RetryOptions {
  /** Runs of the node per call, the first included. @default 1 (no retry) */
  maxAttempts?: number;
  /** Wait before the second attempt, in ms. @default 100 */
  initialDelayMs?: number;
  /** Each wait is the previous one times this. @default 2 */
  backoffFactor?: number;
  /** The longest wait, in ms. @default 10_000 */
  maxDelayMs?: number;
  /** Wait a random time between half the delay and all of it. @default true */
  jitter?: boolean;
  /** Whether an error is worth another attempt. @default () => true */
  retryOn?: (error: unknown) => boolean;
}

/** Options of `addNode`. */
export interface NodeOptions {
  /** Re-run the node when it throws (never for an interrupt). */
  retry?: RetryOptions;
  /** Each run of the node gets this long; then `ctx.signal` aborts and the run fails with `NodeTimeout`. */
  timeoutMs?: number;
}

/** A node: reads the state, returns its update. */
export type NodeFn<S extends State> = (state: S, ctx: NodeContext) => Update<S> | Promise<Update<S>>;

/** What a router may return: a node name, `END`, or several of them (fan-out). */
export type RouteTarget = string | readonly string[];

/** Chooses where to go after a node, from the state after the super-step. */
export type Router<S extends State> = (state: S) => RouteTarget | Promise<RouteTarget>;

/** Options of `new StateGraph()`. */
export interface StateGraphOptions<S extends State> {
  /** How updates of a key are combined. @default {} (every key is replaced) */
  reducers?: Reducers<S>;
}

/** Options of `compile()`. */
export interface CompileOptions extends StateVersionOptions {
  /** Persists every super-step; without it the graph runs in memory and cannot be resumed. */
  checkpointer?: Checkpointer;
  /** Suspend before any super-step whose frontier holds one of these nodes. @default [] */
  interruptBefore?: readonly string[];
  /**
   * How long a call's lease on its thread lasts unless renewed (every `leaseMs / 3`); a worker that dies is
   * taken over after this. @default 30_000
   */
  leaseMs?: number;
  /** Most super-steps one `invoke`/`resume` call runs before rejecting with `StepLimitExceeded`. @default 100 */
  maxSteps?: number;
  /** Masks values in stream events (checkpoints keep the real state). See `createRedactor` in `@flow/core`. */
  redactor?: Redactor;
  /**
   * Run nodes inside `AsyncLocalStorage` from the start, so the free `interrupt()` works after an `await`
   * without the one-time re-run of a super-step. Costs every promise in the process. @default false
   */
  asyncContext?: boolean;
}

/** Options of `invoke()` and `stream()`. */
export interface InvokeOptions {
  /** The run's id. @default a random UUID */
  thread?: string;
  /** Aborting it stops the call with `RunCancelled` (every running node's `ctx.signal` aborts too). */
  signal?: AbortSignal;
}

/** Options of `enqueue()`. */
export interface EnqueueOptions {
  /** The run's id. @default a random UUID */
  thread?: string;
}

/** Options of `fork()`. */
export interface ForkOptions {
  /** The last step to copy. */
  step: number;
  /** The new thread's id; it must not exist. @default a random UUID */
  to?: string;
}

/** Options of `resume()` and `streamResume()`. */
export interface ResumeOptions<S extends State = State> {
  /** The human's answer: the suspended `interrupt()` call returns it. */
  answer?: unknown;
  /** Top-level keys replaced in the state before going on (no reducers). */
  patch?: Partial<S>;
  /**
   * The id of the interrupt `answer` is for (`run.interrupt.id`, `run.interrupts[i].id`). When it is no
   * longer pending the call rejects with `AlreadyResumed` and writes nothing. @default the current interrupt
   */
  interrupt?: string;
  /** Aborting it stops the call with `RunCancelled` (every running node's `ctx.signal` aborts too). */
  signal?: AbortSignal;
}

/** A question waiting for a human: the node's interrupt call, and its stable id. */
export interface PendingInterrupt {
  /** Stable across reads: derived from thread, super-step, node and the call's position in the node. */
  id: string;
  node: string;
  payload: unknown;
}

/** What `invoke` and `resume` resolve with. */
export interface RunResult<S extends State = State> {
  thread: string;
  status: 'done' | 'interrupted';
  state: S;
  /** The step of the latest checkpoint. */
  step: number;
  /**
   * Set when `status` is `'interrupted'`: the interrupt the run stopped for. `id` is `null` for an
   * `interruptBefore` stop (no question is waiting: resume it without an answer).
   */
  interrupt?: { id: string | null; node: string; payload: unknown };
  /**
   * Set when `status` is `'interrupted'`: every pending interrupt of the stopped super-step, in frontier order
   * (`[]` for an `interruptBefore` stop).
   */
  interrupts?: PendingInterrupt[];
}

/** One event of `stream()`: a super-step that ran, or an interrupt stop. */
export interface StreamEvent {
  /** The step of the checkpoint this super-step wrote. */
  step: number;
  /** The nodes that ran (`[]` for an `interruptBefore` stop). */
  ran: readonly string[];
  /** Each node's update by node name (redacted when a redactor is set; `{}` for an interrupt stop). */
  updates: Record<string, unknown>;
  /** The frontier after this step. */
  next: readonly string[];
  interrupted: boolean;
}
