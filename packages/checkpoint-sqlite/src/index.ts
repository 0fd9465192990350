export type { SqliteDatabase, SqliteStatement, SqliteTransaction } from './driver.js';
export type { SqliteCheckpointerOptions, SqliteSynchronous } from './options.js';
export { SqliteCheckpointer } from './sqlite-checkpointer.js';
