import { AsyncLocalStorage } from 'node:async_hooks';
import { NoCheckpointer } from './errors.js';

/** One run of a node: who runs, the answers its `interrupt()` calls get, and whether one of them suspended. */
export interface NodeScope {
  readonly node: string;
  /** False when the graph has no checkpointer: `interrupt()` then rejects with `NoCheckpointer`. */
  readonly durable: boolean;
  /** Answers by call position: the k-th `interrupt()` call of this run returns `answers[k]`. */
  readonly answers: readonly unknown[];
  /** `interrupt()` calls made so far in this run of the node. */
  calls: number;
  /**
   * The call that suspended this run. Once set, the run counts as interrupted whatever the node does next
   * (catching the signal and returning normally included).
   */
  suspended: { readonly position: number; readonly payload: unknown } | undefined;
}

const SIGNAL = Symbol.for('@flow/graph/interrupt-signal');
const CONTEXT_NEEDED = Symbol.for('@flow/graph/async-context-needed');

/** Thrown by `interrupt()` to unwind the node; the engine turns it into an interrupt stop. */
export class InterruptSignal extends Error {
  readonly node: string;
  readonly payload: unknown;

  constructor(node: string, payload: unknown) {
    super(`[flow:graph] node ${JSON.stringify(node)} interrupted (an engine signal: do not catch it)`);
    this.name = 'InterruptSignal';
    this.node = node;
    this.payload = payload;
    Object.defineProperty(this, SIGNAL, { value: true });
  }
}

/**
 * Thrown by the free `interrupt()` when it runs after an `await` and async context is off: the engine then
 * turns `AsyncLocalStorage` on and runs the super-step again.
 */
export class AsyncContextNeeded extends Error {
  constructor() {
    super(
      '[flow:graph] interrupt() could not tell which node called it: it ran after an await while async ' +
        'context was off (the engine turns it on and re-runs the step), or outside a graph node',
    );
    this.name = 'AsyncContextNeeded';
    Object.defineProperty(this, CONTEXT_NEEDED, { value: true });
  }
}

export function isInterruptSignal(error: unknown): error is InterruptSignal {
  return typeof error === 'object' && error !== null && (error as { [SIGNAL]?: boolean })[SIGNAL] === true;
}

export function isAsyncContextNeeded(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { [CONTEXT_NEEDED]?: boolean })[CONTEXT_NEEDED] === true
  );
}

/**
 * Process-wide slots, shared by every copy of this package through a global symbol: the node whose
 * synchronous part is running, and the AsyncLocalStorage, created the first time a graph needs it.
 */
interface Shared {
  current: NodeScope | undefined;
  als: AsyncLocalStorage<NodeScope> | undefined;
  /**
   * How many times `interrupt()` found no node while async context was off (thrown `AsyncContextNeeded`s). A
   * super-step that sees it move re-runs with async context on even when the node caught the signal and
   * returned: the call must still suspend. (Absent in a slot made by an older copy of this package.)
   */
  misses?: number;
}
const KEY = Symbol.for('@flow/graph/context');
const holder = globalThis as Record<symbol, Shared | undefined>;
const shared: Shared = holder[KEY] ?? { current: undefined, als: undefined };
holder[KEY] = shared;

/** Turns async context on for the rest of the process (idempotent). */
export function enableAsyncContext(): void {
  shared.als ??= new AsyncLocalStorage<NodeScope>();
}

/** The count of `interrupt()` calls that needed async context while it was off (see `Shared.misses`). */
export function contextMisses(): number {
  return shared.misses ?? 0;
}

/** Whether this process has created the AsyncLocalStorage. */
export function asyncContextEnabled(): boolean {
  return shared.als !== undefined;
}

/** The shared body of `ctx.interrupt` and the free `interrupt`. */
export function suspend(scope: NodeScope, payload: unknown): unknown {
  if (!scope.durable) throw new NoCheckpointer('interrupt()');
  const position = scope.calls++;
  if (position < scope.answers.length) return scope.answers[position];
  scope.suspended ??= { position, payload };
  throw new InterruptSignal(scope.node, payload);
}

/**
 * Calls a node with its scope reachable by the free `interrupt()`: in a synchronous slot (enough for code
 * before the node's first `await`) and, once async context is on, in AsyncLocalStorage too.
 */
export function callInScope<A, B, R>(scope: NodeScope, fn: (a: A, b: B) => R, a: A, b: B): R {
  const prev = shared.current;
  shared.current = scope;
  try {
    const als = shared.als;
    return als === undefined ? fn(a, b) : als.run(scope, fn, a, b);
  } finally {
    shared.current = prev;
  }
}

/**
 * Suspends the running node for a human, like `ctx.interrupt(payload)`, from anywhere in the node's call tree.
 * On `resume(thread, { answer })` the call that suspended returns `answer`. A node that catches the signal still
 * suspends the run (its update is not applied).
 *
 * Before the node's first `await` it costs nothing. After an `await` it needs `AsyncLocalStorage`: the first
 * such call in a process turns it on and the engine re-runs that super-step (or pass
 * `compile({ asyncContext: true })` to start with it on). Rejects with `NoCheckpointer` in a graph without one.
 *
 * @example
 * async function askManager(order) { await audit(order); return interrupt<boolean>({ approve: order.id }); }
 */
export function interrupt<A = unknown>(payload?: unknown): A {
  const scope = shared.current ?? shared.als?.getStore();
  if (scope !== undefined) return suspend(scope, payload) as A;
  if (shared.als !== undefined) {
    throw new Error('[flow:graph] interrupt() was called outside a running graph node');
  }
  shared.misses = (shared.misses ?? 0) + 1;
  throw new AsyncContextNeeded();
}
