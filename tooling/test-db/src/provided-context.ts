import type {} from 'vitest';

/**
 * What the global setups hand to test workers through vitest's `provide`/`inject`.
 * Importing anything from `@flow/test-db` brings these names into `inject()`'s types.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the Postgres server of this run (set by `@flow/test-db/setup-postgres`). */
    flowTestPostgresUrl: string;
    /** URL of the Redis server of this run (set by `@flow/test-db/setup-redis`). */
    flowTestRedisUrl: string;
    /** URL of a PgBouncer in transaction mode in front of that Postgres (`@flow/test-db/setup-pgbouncer`). */
    flowTestPgBouncerUrl: string;
    /** The primaries of a Redis Cluster on loopback (`@flow/test-db/setup-redis-cluster`). */
    flowTestRedisClusterNodes: { host: string; port: number }[];
  }
}
