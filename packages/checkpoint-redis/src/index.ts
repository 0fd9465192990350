export { defaultClientOptions, type RedisArg, type RedisClient } from './client.js';
export { RedisCheckpointer, type RedisCheckpointerOptions } from './redis-checkpointer.js';
