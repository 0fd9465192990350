/**
 * The small part of mysql2's promise API this backend calls, typed structurally: a `mysql2/promise` pool fits,
 * and so does anything with the same shape (another mysql2 version, a wrapper that counts queries in a test).
 */

/** What `execute` resolves with for an INSERT, UPDATE or DELETE. */
export interface MysqlWriteResult {
  affectedRows: number;
}

/** Something that runs prepared statements: a pool, or one connection taken from it. */
export interface MysqlQueryable {
  /** A server-side prepared statement: values travel apart from the SQL text, never spliced into it. */
  // mysql2 types the values as its own ExecuteValues: `any` lets a mysql2 pool fit this interface.
  execute(sql: string, values?: any[]): Promise<[unknown, unknown]>;
  /** A statement without parameters (DDL, transaction control). */
  query(sql: string): Promise<[unknown, unknown]>;
}

/** One connection taken from the pool, for a transaction. */
export interface MysqlConnection extends MysqlQueryable {
  /** Gives the connection back to the pool. */
  release(): void;
  /** Closes the connection instead of returning it: for a connection whose state is unknown after an error. */
  destroy(): void;
}

/** The subset of a `mysql2/promise` `Pool` this backend uses. */
export interface MysqlPool extends MysqlQueryable {
  getConnection(): Promise<MysqlConnection>;
  end(): Promise<void>;
}
