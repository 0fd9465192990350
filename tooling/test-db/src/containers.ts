/**
 * Throwaway servers started with testcontainers, at most one of each kind per process, stopped by
 * `stopContainers()` (the vitest global setup calls it at the end of the run). testcontainers is imported
 * only when a container is needed, so the usual path (an env URL or a local server) never loads it.
 */
import { runId } from './unique.js';

/** Docker image of the throwaway Postgres server when `FLOW_TEST_POSTGRES_IMAGE` is unset and no local build exists. */
export const POSTGRES_IMAGE = 'postgres:16-alpine';
/** Docker image of the throwaway Redis server when `FLOW_TEST_REDIS_IMAGE` is unset and no local build exists. */
export const REDIS_IMAGE = 'redis:7-alpine';
/** The images `tooling/test-images` builds from Debian's packages, preferred when present (no registry needed). */
export const LOCAL_POSTGRES_IMAGE = 'flow-test/postgres:17';
export const LOCAL_REDIS_IMAGE = 'flow-test/redis:7';
/** The label on every container this tooling starts; its value is the run id, so a run can sweep its own. */
export const RUN_LABEL = 'flow-test.run';
/** The label that says which kind of server a container is. */
export const KIND_LABEL = 'flow-test.kind';

interface Started {
  url: string;
  stop(): Promise<unknown>;
}

const started = new Map<ContainerKind, Promise<Started>>();

/**
 * testcontainers' settings for this machine, unless the caller chose otherwise: no Ryuk (its image cannot be
 * pulled without a registry; the global setups stop their containers and sweep by label instead), and the
 * mapped ports reached on 127.0.0.1, where they are bound.
 */
function configureTestcontainers(): void {
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
}

/** Whether testcontainers finds a working container runtime (Docker, Podman, a remote DOCKER_HOST...). */
export async function dockerReachable(): Promise<boolean> {
  configureTestcontainers();
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/** Whether the container runtime already has `image` (so starting it pulls nothing). */
async function imagePresent(image: string): Promise<boolean> {
  const { getContainerRuntimeClient, ImageName } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  return client.image.exists(ImageName.fromString(image));
}

/**
 * The image for `kind`: the env variable when set; else the local build of `tooling/test-images` when the
 * engine has it; else the Docker Hub image, which testcontainers pulls.
 */
export async function containerImage(kind: ContainerKind, env = process.env): Promise<string> {
  const [variable, local, hub] =
    kind === 'postgres'
      ? ['FLOW_TEST_POSTGRES_IMAGE', LOCAL_POSTGRES_IMAGE, POSTGRES_IMAGE]
      : ['FLOW_TEST_REDIS_IMAGE', LOCAL_REDIS_IMAGE, REDIS_IMAGE];
  const chosen = env[variable];
  if (chosen !== undefined && chosen !== '') return chosen;
  return (await imagePresent(local)) ? local : hub;
}

/** Publishes every exposed port on 127.0.0.1 only: a throwaway server with a known password is no service. */
function bindToLoopback(hostConfig: { PortBindings?: Record<string, { HostIp?: string }[]> }): void {
  for (const bindings of Object.values(hostConfig.PortBindings ?? {}))
    for (const binding of bindings) binding.HostIp = '127.0.0.1';
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
    configureTestcontainers();
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    class LoopbackPostgres extends PostgreSqlContainer {
      constructor(image: string) {
        super(image);
        bindToLoopback(this.hostConfig);
      }
    }
    const image = await containerImage('postgres');
    const container = await new LoopbackPostgres(image)
      .withLabels({ [RUN_LABEL]: runId(), [KIND_LABEL]: 'postgres' })
      .start();
    return { url: container.getConnectionUri(), stop: () => container.stop() };
  });
}

/** Starts (once) a Redis container and resolves with its connection URL. */
export function startRedisContainer(): Promise<string> {
  return once('redis', async () => {
    configureTestcontainers();
    const { RedisContainer } = await import('@testcontainers/redis');
    class LoopbackRedis extends RedisContainer {
      constructor(image: string) {
        super(image);
        bindToLoopback(this.hostConfig);
      }
    }
    const image = await containerImage('redis');
    const container = await new LoopbackRedis(image)
      .withLabels({ [RUN_LABEL]: runId(), [KIND_LABEL]: 'redis' })
      .start();
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

/**
 * Removes every running container of `kind` labelled with run `id` (a stop that failed, a start whose
 * caller died), and resolves with how many it removed; with no reachable runtime there is nothing to remove.
 */
export async function removeRunContainers(kind: ContainerKind, id = runId()): Promise<number> {
  if (!(await dockerReachable())) return 0;
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  const leftovers = (await client.container.list()).filter(
    (c) => c.Labels[RUN_LABEL] === id && c.Labels[KIND_LABEL] === kind,
  );
  await Promise.all(leftovers.map((c) => client.container.getById(c.Id).remove({ force: true, v: true })));
  return leftovers.length;
}
