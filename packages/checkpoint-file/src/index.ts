export { FileCheckpointer } from './file-checkpointer.js';
export type { FileCheckpointerOptions } from './options.js';
