import { FlowError, flowPrefix, isFlowError } from '@flow/core';

const q = JSON.stringify;

/** `${GRAPH}`: the start of every message the engine writes. */
export const GRAPH = flowPrefix('graph');

/**
 * The engine's error codes (core's `FlowErrorCode` holds storage's). Match them with `isFlowError(e, 'NODE_FAILED')`
 * or `isGraphError(e, 'NODE_TIMEOUT')`.
 */
export type GraphErrorCode =
  | 'ALREADY_RESUMED'
  | 'THREAD_NOT_FOUND'
  | 'THREAD_BUSY'
  | 'NO_CHECKPOINTER'
  | 'STEP_LIMIT'
  | 'INVALID_GRAPH'
  | 'INVALID_UPDATE'
  | 'NODE_FAILED'
  | 'STATE_VERSION'
  | 'NODE_TIMEOUT'
  | 'RUN_CANCELLED';

/** True when `error` is a @flow error with one of the engine's own codes (works across package copies). */
export function isGraphError(error: unknown, code: GraphErrorCode): boolean {
  return isFlowError(error, code);
}

/** Another resumer claimed the run first, or an answer was sent to a thread that is no longer interrupted. */
export class AlreadyResumed extends FlowError {
  readonly thread: string;
  /** The step whose claim was lost, or the thread's latest step when an answer came too late. */
  readonly step: number;

  constructor(thread: string, step: number, detail: string, options?: { cause?: unknown }) {
    super('ALREADY_RESUMED', `${GRAPH}thread ${q(thread)} step ${step}: ${detail}`, options);
    this.thread = thread;
    this.step = step;
  }
}

/** `resume` was called on a thread that has no checkpoint. */
export class ThreadNotFound extends FlowError {
  readonly thread: string;

  constructor(thread: string) {
    super('THREAD_NOT_FOUND', `${GRAPH}thread ${q(thread)} not found`);
    this.thread = thread;
  }
}

/** `invoke` was called on a thread whose run has not finished (running or interrupted): use `resume`. */
export class ThreadBusy extends FlowError {
  readonly thread: string;

  constructor(thread: string, detail: string) {
    super('THREAD_BUSY', `${GRAPH}thread ${q(thread)} ${detail}`);
    this.thread = thread;
  }
}

/** The operation needs a checkpointer and the graph was compiled without one. */
export class NoCheckpointer extends FlowError {
  constructor(operation: string) {
    super('NO_CHECKPOINTER', `${GRAPH}${operation} needs a checkpointer: compile({ checkpointer })`);
  }
}

/** One `invoke`/`resume` call ran `maxSteps` super-steps and the run had not finished. It stays resumable. */
export class StepLimitExceeded extends FlowError {
  readonly thread: string;
  /** The last committed step. */
  readonly step: number;
  readonly maxSteps: number;

  constructor(thread: string, step: number, maxSteps: number) {
    super(
      'STEP_LIMIT',
      `${GRAPH}thread ${q(thread)} ran ${maxSteps} super-steps without finishing (last step ${step}); ` +
        'resume it to go on',
    );
    this.thread = thread;
    this.step = step;
    this.maxSteps = maxSteps;
  }
}

/** The graph's shape is wrong: a bad node name, an edge to an unknown node, no entry, an unreachable node. */
export class GraphValidationError extends FlowError {
  constructor(message: string) {
    super('INVALID_GRAPH', `${GRAPH}${message}`);
  }
}

/** A node returned an update the engine cannot apply (two writers of one key without a reducer, a non-object...). */
export class InvalidUpdateError extends FlowError {
  /** The state key concerned, when there is one. */
  readonly key: string | undefined;
  /** The nodes whose updates clashed or failed. */
  readonly nodes: readonly string[];

  constructor(message: string, args: { key?: string; nodes: readonly string[]; cause?: unknown }) {
    super('INVALID_UPDATE', `${GRAPH}${message}`, { cause: args.cause });
    this.key = args.key;
    this.nodes = Object.freeze([...args.nodes]);
  }
}

/** A node threw (after its retries). What was committed stays, and `resume` re-runs the super-step. */
export class NodeError extends FlowError {
  readonly node: string;
  /** The step of the checkpoint the node read (its `ctx.step`). */
  readonly step: number;
  readonly thread: string;
  /** How many times the node ran in this call (1 without retries). */
  readonly attempts: number;

  constructor(args: { node: string; step: number; thread: string; cause: unknown; attempts?: number }) {
    const detail = args.cause instanceof Error ? args.cause.message : String(args.cause);
    const attempts = args.attempts ?? 1;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    super(
      'NODE_FAILED',
      `${GRAPH}node ${q(args.node)} failed at step ${args.step} of thread ${q(args.thread)}${tries}: ${detail}`,
      { cause: args.cause },
    );
    this.node = args.node;
    this.step = args.step;
    this.thread = args.thread;
    this.attempts = attempts;
  }
}

/** A node ran past its `timeoutMs`: the `cause` of that run's `NodeError`. Its late result is dropped. */
export class NodeTimeout extends FlowError {
  readonly node: string;
  readonly timeoutMs: number;

  constructor(node: string, timeoutMs: number) {
    super('NODE_TIMEOUT', `${GRAPH}node ${q(node)} did not finish within ${timeoutMs} ms`);
    this.node = node;
    this.timeoutMs = timeoutMs;
  }
}

/** The call's `signal` aborted. What was committed stays, and the run is resumable. */
export class RunCancelled extends FlowError {
  readonly thread: string;
  /** The thread's last committed step (`-1` when the call was cancelled before writing anything). */
  readonly step: number;

  constructor(thread: string, step: number, reason: unknown) {
    const why =
      reason instanceof Error ? `: ${reason.message}` : reason === undefined ? '' : `: ${String(reason)}`;
    super(
      'RUN_CANCELLED',
      `${GRAPH}the call on thread ${q(thread)} was cancelled${why} (last committed step ${step}; resume it to go on)`,
      { cause: reason },
    );
    this.thread = thread;
    this.step = step;
  }
}
