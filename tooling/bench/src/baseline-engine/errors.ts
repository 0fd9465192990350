import { FlowError } from '@flow/core';

const q = JSON.stringify;

/** Another resumer claimed the run first, or an answer was sent to a thread that is no longer interrupted. */
export class AlreadyResumed extends FlowError {
  readonly thread: string;
  /** The step whose claim was lost, or the thread's latest step when an answer came too late. */
  readonly step: number;

  constructor(thread: string, step: number, detail: string) {
    super('ALREADY_RESUMED', `[flow:graph] thread ${q(thread)} step ${step}: ${detail}`);
    this.thread = thread;
    this.step = step;
  }
}

/** `resume` was called on a thread that has no checkpoint. */
export class ThreadNotFound extends FlowError {
  readonly thread: string;

  constructor(thread: string) {
    super('THREAD_NOT_FOUND', `[flow:graph] thread ${q(thread)} not found`);
    this.thread = thread;
  }
}

/** `invoke` was called on a thread whose run has not finished (running or interrupted): use `resume`. */
export class ThreadBusy extends FlowError {
  readonly thread: string;

  constructor(thread: string, detail: string) {
    super('THREAD_BUSY', `[flow:graph] thread ${q(thread)} ${detail}`);
    this.thread = thread;
  }
}

/** The operation needs a checkpointer and the graph was compiled without one. */
export class NoCheckpointer extends FlowError {
  constructor(operation: string) {
    super('NO_CHECKPOINTER', `[flow:graph] ${operation} needs a checkpointer: compile({ checkpointer })`);
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
      `[flow:graph] thread ${q(thread)} ran ${maxSteps} super-steps without finishing (last step ${step}); ` +
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
    super('INVALID_GRAPH', `[flow:graph] ${message}`);
  }
}

/** A node returned an update the engine cannot apply (two writers of one key without a reducer, a non-object...). */
export class InvalidUpdateError extends FlowError {
  /** The state key concerned, when there is one. */
  readonly key: string | undefined;
  /** The nodes whose updates clashed or failed. */
  readonly nodes: readonly string[];

  constructor(message: string, args: { key?: string; nodes: readonly string[]; cause?: unknown }) {
    super('INVALID_UPDATE', `[flow:graph] ${message}`, { cause: args.cause });
    this.key = args.key;
    this.nodes = Object.freeze([...args.nodes]);
  }
}

/** A node threw. The last committed checkpoint stays, and `resume` re-runs the super-step. */
export class NodeError extends FlowError {
  readonly node: string;
  /** The step of the checkpoint the node read (its `ctx.step`). */
  readonly step: number;
  readonly thread: string;

  constructor(args: { node: string; step: number; thread: string; cause: unknown }) {
    const detail = args.cause instanceof Error ? args.cause.message : String(args.cause);
    super(
      'NODE_FAILED',
      `[flow:graph] node ${q(args.node)} failed at step ${args.step} of thread ${q(args.thread)}: ${detail}`,
      { cause: args.cause },
    );
    this.node = args.node;
    this.step = args.step;
    this.thread = args.thread;
  }
}
