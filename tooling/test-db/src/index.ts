export { type Child, type StartChildOptions, startChild } from './child-process.js';
export { deleteKeys, dropSchema, dropSchemasStartingWith } from './cleanup.js';
export {
  type ContainerKind,
  containerImage,
  dockerReachable,
  KIND_LABEL,
  LOCAL_POSTGRES_IMAGE,
  LOCAL_REDIS_IMAGE,
  POSTGRES_IMAGE,
  REDIS_IMAGE,
  RUN_LABEL,
  removeRunContainers,
  stopContainers,
} from './containers.js';
export { ensureBuilt, isBuildStale } from './ensure-built.js';
export { freePorts, sweepOrphans } from './own-daemon.js';
export { type PgBouncer, startPgBouncer } from './pgbouncer.js';
export { PROBE_TIMEOUT_MS, probePostgres, probeRedis } from './probe.js';
export type {} from './provided-context.js';
export { type RedisClusterHandle, startRedisCluster } from './redis-cluster.js';
export {
  type DatabaseSource,
  LOCAL_POSTGRES_URL,
  LOCAL_REDIS_URL,
  type ResolvedDatabase,
  type ResolveOptions,
  resolvePostgres,
  resolveRedis,
} from './resolve.js';
export { keyRunPrefix, RUN_ID_ENV, runId, schemaRunPrefix, uniquePrefix, uniqueSchema } from './unique.js';
