export type { MysqlConnection, MysqlPool, MysqlQueryable, MysqlWriteResult } from './driver.js';
export { MysqlCheckpointer, type MysqlCheckpointerOptions } from './mysql-checkpointer.js';
