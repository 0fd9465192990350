export { CompiledGraph } from './compiled-graph.js';
export { END, START } from './constants.js';
export {
  AlreadyResumed,
  type GraphErrorCode,
  GraphValidationError,
  InvalidUpdateError,
  isGraphError,
  NoCheckpointer,
  NodeError,
  NodeTimeout,
  RunCancelled,
  StepLimitExceeded,
  ThreadBusy,
  ThreadNotFound,
} from './errors.js';
export { interrupt } from './interrupt.js';
export { pendingInterrupts } from './pending.js';
export { StateGraph } from './state-graph.js';
export {
  type StateMigration,
  StateVersionError,
  type StateVersionOptions,
} from './state-version.js';
export type {
  CompileOptions,
  EnqueueOptions,
  ForkOptions,
  InvokeOptions,
  NodeContext,
  NodeFn,
  NodeOptions,
  PendingInterrupt,
  Reducer,
  Reducers,
  ResumeOptions,
  RetryOptions,
  Router,
  RouteTarget,
  RunResult,
  State,
  StateGraphOptions,
  StreamEvent,
  Update,
} from './types.js';
export { createWorker, type Worker } from './worker.js';
export type { WorkerOptions } from './worker-options.js';
