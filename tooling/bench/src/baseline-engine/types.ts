import type { Checkpointer, Redactor } from '@flow/core';

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
export interface CompileOptions {
  /** Persists every super-step; without it the graph runs in memory and cannot be resumed. */
  checkpointer?: Checkpointer;
  /** Suspend before any super-step whose frontier holds one of these nodes. @default [] */
  interruptBefore?: readonly string[];
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
}

/** Options of `resume()` and `streamResume()`. */
export interface ResumeOptions<S extends State = State> {
  /** The human's answer: the suspended `interrupt()` call returns it. */
  answer?: unknown;
  /** Top-level keys replaced in the state before going on (no reducers). */
  patch?: Partial<S>;
}

/** What `invoke` and `resume` resolve with. */
export interface RunResult<S extends State = State> {
  thread: string;
  status: 'done' | 'interrupted';
  state: S;
  /** The step of the latest checkpoint. */
  step: number;
  /** Set when `status` is `'interrupted'`. */
  interrupt?: { node: string; payload: unknown };
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
