/**
 * The small part of `pg` this backend calls, typed structurally: a `pg.Pool` fits, so does any pool with the
 * same shape (another pg version, an instrumented wrapper in tests).
 */

/** A query as `pg` takes it. `name` makes it a named prepared statement, parsed once per connection. */
export interface PgQueryConfig {
  name?: string;
  text: string;
  values?: unknown[];
}

/** What `pg` resolves a query with (the fields this backend reads). */
export interface PgQueryResult<R> {
  rows: R[];
  rowCount: number | null;
}

/** Something that runs queries: a pool or one checked-out client. */
export interface PgQueryable {
  query<R = any>(config: PgQueryConfig): Promise<PgQueryResult<R>>;
}

/** A client checked out of a pool, for a multi-statement transaction. */
export interface PgPoolClient extends PgQueryable {
  /** Returns the client; passing an error makes the pool destroy it instead of reusing it. */
  release(error?: Error | boolean): void;
}

/** The subset of `pg.Pool` this backend uses. */
export interface PgPool extends PgQueryable {
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
}
