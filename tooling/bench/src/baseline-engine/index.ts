export { CompiledGraph } from './compiled-graph.js';
export { END, START } from './constants.js';
export {
  AlreadyResumed,
  GraphValidationError,
  InvalidUpdateError,
  NoCheckpointer,
  NodeError,
  StepLimitExceeded,
  ThreadBusy,
  ThreadNotFound,
} from './errors.js';
export { interrupt } from './interrupt.js';
export { StateGraph } from './state-graph.js';
export type {
  CompileOptions,
  InvokeOptions,
  NodeContext,
  NodeFn,
  Reducer,
  Reducers,
  ResumeOptions,
  Router,
  RouteTarget,
  RunResult,
  State,
  StateGraphOptions,
  StreamEvent,
  Update,
} from './types.js';
