export { FlowSaver, type FlowSaverOptions } from './flow-saver.js';
export { flowThreadOf, parseFlowThread } from './thread-key.js';
