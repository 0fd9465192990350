export type { Breakpoints } from './breakpoints.js';
export { FlowSaver, type FlowSaverOptions } from './flow-saver.js';
export {
  type LangGraphApp,
  type ServedInterrupt,
  type ServedLangGraph,
  type ServedResult,
  servedGraph,
} from './served-graph.js';
export { flowThreadOf, parseFlowThread } from './thread-key.js';
