export type { PgPool, PgPoolClient, PgQueryable, PgQueryConfig, PgQueryResult } from './driver.js';
export { LATEST_VERSION, MIGRATIONS, type Migration } from './migrations.js';
export { PostgresCheckpointer, type PostgresCheckpointerOptions } from './postgres-checkpointer.js';
