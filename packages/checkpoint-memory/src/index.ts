export { MemoryCheckpointer, type MemoryCheckpointerOptions } from './memory-checkpointer.js';
