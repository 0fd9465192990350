import {
  dockerReachable,
  LOCAL_POSTGRES_IMAGE,
  LOCAL_REDIS_IMAGE,
  POSTGRES_IMAGE,
  REDIS_IMAGE,
  startPostgresContainer,
  startRedisContainer,
} from './containers.js';
import { PROBE_TIMEOUT_MS, probePostgres, probeRedis } from './probe.js';
import { redactUrl } from './redact-url.js';

/** Where a server came from: the env variable, the default local port, or a container started for the run. */
export type DatabaseSource = 'env' | 'local' | 'container';

/** A server the suites can use. */
export interface ResolvedDatabase {
  url: string;
  source: DatabaseSource;
}

/** Knobs for the resolvers; the defaults are what suites use. Tests of the tooling override them. */
export interface ResolveOptions {
  /** Where `FLOW_TEST_POSTGRES_URL` / `FLOW_TEST_REDIS_URL` is read. @default process.env */
  env?: Record<string, string | undefined>;
  /**
   * The local server tried second; `'off'` skips that step. @default `FLOW_TEST_LOCAL_POSTGRES_URL` /
   * `FLOW_TEST_LOCAL_REDIS_URL` when set, else postgres://postgres@127.0.0.1:5432/postgres or redis://127.0.0.1:6379
   */
  localUrl?: string;
  /** Whether to start a container when nothing answers. @default true */
  containers?: boolean;
  /** How long each probe waits. @default 2000 */
  timeoutMs?: number;
}

/** Default URL of a local Postgres server. */
export const LOCAL_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
/** Default URL of a local Redis server. */
export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

interface Kind {
  name: string;
  envVar: string;
  localEnvVar: string;
  imageEnvVar: string;
  localUrl: string;
  localHint: string;
  images: string;
  probe(url: string, timeoutMs: number): Promise<void>;
  startContainer(): Promise<string>;
}

const POSTGRES: Kind = {
  name: 'Postgres',
  envVar: 'FLOW_TEST_POSTGRES_URL',
  localEnvVar: 'FLOW_TEST_LOCAL_POSTGRES_URL',
  imageEnvVar: 'FLOW_TEST_POSTGRES_IMAGE',
  localUrl: LOCAL_POSTGRES_URL,
  localHint: 'start Postgres on 127.0.0.1:5432 (user postgres, database postgres, trust auth)',
  images: `${LOCAL_POSTGRES_IMAGE} (built by tooling/test-images) or ${POSTGRES_IMAGE}`,
  probe: probePostgres,
  startContainer: startPostgresContainer,
};

const REDIS: Kind = {
  name: 'Redis',
  envVar: 'FLOW_TEST_REDIS_URL',
  localEnvVar: 'FLOW_TEST_LOCAL_REDIS_URL',
  imageEnvVar: 'FLOW_TEST_REDIS_IMAGE',
  localUrl: LOCAL_REDIS_URL,
  localHint: 'start Redis on 127.0.0.1:6379',
  images: `${LOCAL_REDIS_IMAGE} (built by tooling/test-images) or ${REDIS_IMAGE}`,
  probe: probeRedis,
  startContainer: startRedisContainer,
};

function reason(error: unknown): string {
  const message = error instanceof Error ? error.message || error.constructor.name : String(error);
  // AggregateError (several addresses refused) has an empty message; its parts say what happened.
  if (error instanceof AggregateError && error.errors.length > 0) return reason(error.errors[0]);
  return message.replace(/\s+/g, ' ').trim();
}

async function resolve(kind: Kind, options: ResolveOptions): Promise<ResolvedDatabase> {
  const env = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS;
  const fromEnv = env[kind.envVar];
  if (fromEnv !== undefined && fromEnv !== '') {
    try {
      await kind.probe(fromEnv, timeoutMs);
    } catch (error) {
      // Set explicitly means "use this one": falling through to another server would hide the mistake.
      throw new Error(
        `${kind.envVar} is set to ${redactUrl(fromEnv)}, but no ${kind.name} answers there (${reason(error)}). ` +
          `Start that server, fix the URL, or unset ${kind.envVar} to use a local server or Docker.`,
      );
    }
    return { url: fromEnv, source: 'env' };
  }
  const localUrl = options.localUrl || env[kind.localEnvVar] || kind.localUrl;
  if (localUrl !== 'off') {
    try {
      await kind.probe(localUrl, timeoutMs);
      return { url: localUrl, source: 'local' };
    } catch {
      // Nothing local: try a container next.
    }
  }
  if ((options.containers ?? true) && (await dockerReachable())) {
    return { url: await kind.startContainer(), source: 'container' };
  }
  throw new Error(
    `No ${kind.name} server for the tests: ` +
      (localUrl === 'off'
        ? `the local probe is off (${kind.localEnvVar}=off)`
        : `nothing answers at ${redactUrl(localUrl)}`) +
      ` and no Docker engine is reachable. Set ${kind.envVar} (e.g. ${kind.envVar}=${kind.localUrl}), ` +
      `${kind.localHint}, or start Docker so testcontainers can run ${kind.imageEnvVar} or ${kind.images}.`,
  );
}

/**
 * Finds a Postgres server for the tests (tooling/test-db/README.md): `FLOW_TEST_POSTGRES_URL` when set (failing fast if
 * it does not answer), else a server on 127.0.0.1:5432, else a testcontainers container when Docker is
 * reachable, else an Error saying how to provide one. Never skips, never hangs (each probe waits ~2 s).
 *
 * @example
 * const { url, source } = await resolvePostgres(); // source: 'env' | 'local' | 'container'
 */
export function resolvePostgres(options: ResolveOptions = {}): Promise<ResolvedDatabase> {
  return resolve(POSTGRES, options);
}

/**
 * Finds a Redis server for the tests, in the same order as `resolvePostgres`: `FLOW_TEST_REDIS_URL`,
 * 127.0.0.1:6379, a container, or an Error saying how to provide one.
 *
 * @example
 * const { url } = await resolveRedis();
 */
export function resolveRedis(options: ResolveOptions = {}): Promise<ResolvedDatabase> {
  return resolve(REDIS, options);
}
