export type { ServedGraph } from './graphs.js';
export { createHandler, type FlowHandler, type HandlerOptions } from './handler.js';
export type { ErrorBody, ErrorCode } from './http-error.js';
export type { PendingInterruptJson } from './interrupts.js';
export type { Change } from './json-diff.js';
export { diffJson } from './json-diff.js';
export { isLoopbackHost } from './loopback.js';
export { type FlowServer, type ServeOptions, serve } from './serve.js';
