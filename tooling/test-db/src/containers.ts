/**
 * Throwaway servers started with testcontainers, at most one of each kind per process, stopped by
 * `stopContainers()` (the vitest global setup calls it at the end of the run; Ryuk, testcontainers' reaper,
 * removes them if the process dies first). testcontainers is imported only when a container is needed,
 * so the usual path (an env URL or a local server) never loads it.
 */

/** Docker image of the throwaway Postgres server. */
export const POSTGRES_IMAGE = 'postgres:16-alpine';
/** Docker image of the throwaway Redis server. */
export const REDIS_IMAGE = 'redis:7-alpine';

interface Started {
  url: string;
  stop(): Promise<unknown>;
}

const started = new Map<ContainerKind, Promise<Started>>();

/** Whether testcontainers finds a working container runtime (Docker, Podman, a remote DOCKER_HOST...). */
export async function dockerReachable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

function once(kind: ContainerKind, start: () => Promise<Started>): Promise<string> {
  let pending = started.get(kind);
  if (pending === undefined) {
    pending = start();
    started.set(kind, pending);
    // A failed start is not remembered: the next call tries again.
    pending.catch(() => started.delete(kind));
  }
  return pending.then((s) => s.url);
}

/** Starts (once) a Postgres container and resolves with its connection URL. */
export function startPostgresContainer(): Promise<string> {
  return once('postgres', async () => {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer(POSTGRES_IMAGE).start();
    return { url: container.getConnectionUri(), stop: () => container.stop() };
  });
}

/** Starts (once) a Redis container and resolves with its connection URL. */
export function startRedisContainer(): Promise<string> {
  return once('redis', async () => {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer(REDIS_IMAGE).start();
    return { url: container.getConnectionUrl(), stop: () => container.stop() };
  });
}

/** Which throwaway server. */
export type ContainerKind = 'postgres' | 'redis';

/**
 * Stops the containers this process started: of one kind, or all when `kind` is omitted. Safe to call when
 * none was started.
 */
export async function stopContainers(kind?: ContainerKind): Promise<void> {
  const kinds = kind === undefined ? [...started.keys()] : [kind];
  const stopping = kinds.map((k) => {
    const pending = started.get(k);
    started.delete(k);
    return pending?.then((s) => s.stop()).catch(() => undefined);
  });
  await Promise.all(stopping);
}
