import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the test Redis Cluster's three primaries listen. */
export const REDIS_CLUSTER_PORTS: readonly number[] = [7001, 7002, 7003];

/** A Redis Cluster on loopback, and how to stop it. */
export interface RedisClusterHandle {
  /** `host:port` of every primary, to hand to ioredis' `Cluster`. */
  nodes: { host: string; port: number }[];
  /** Shuts the nodes down if this call started them; leaves a cluster that was already up alone. */
  stop(): void;
}

function cli(port: number, ...args: string[]) {
  return spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });
}

function clusterOk(ports: readonly number[]): boolean {
  return ports.every((port) => /cluster_state:ok/.test(cli(port, 'CLUSTER', 'INFO').stdout ?? ''));
}

function anyAnswers(ports: readonly number[]): boolean {
  return ports.some((port) => (cli(port, 'PING').stdout ?? '').trim() === 'PONG');
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`the test Redis Cluster: ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Makes sure a Redis Cluster of three primaries (no replicas, no persistence) answers on `ports`: reuses one
 * whose nodes all report `cluster_state:ok` (so CI or a parallel run may have started it), else starts the
 * system's `redis-server --cluster-enabled yes` on each port and joins them with
 * `redis-cli --cluster create … --cluster-yes`.
 *
 * @throws when a port is taken by something that is not a healthy cluster, or the cluster does not form
 */
export async function ensureRedisCluster(ports = REDIS_CLUSTER_PORTS): Promise<RedisClusterHandle> {
  const nodes = ports.map((port) => ({ host: '127.0.0.1', port }));
  if (clusterOk(ports)) return { nodes, stop: () => {} };
  if (anyAnswers(ports)) {
    throw new Error(`ports ${ports.join(', ')} answer but are not a healthy Redis Cluster; free them first`);
  }
  const dir = join(tmpdir(), `flow-redis-cluster-${ports.join('-')}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const port of ports) {
    const started = spawnSync(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--daemonize', 'yes'],
        ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
        ...['--cluster-node-timeout', '5000', '--dir', dir, '--save', '', '--appendonly', 'no'],
        ...['--logfile', join(dir, `redis-${port}.log`)],
      ],
      { encoding: 'utf8' },
    );
    if (started.error !== undefined || started.status !== 0) {
      throw new Error(
        `cannot start redis-server on port ${port}: ${started.error?.message ?? started.stderr}`,
      );
    }
  }
  const stop = () => {
    for (const port of ports) cli(port, 'SHUTDOWN', 'NOSAVE');
  };
  try {
    await until(() => ports.every((port) => (cli(port, 'PING').stdout ?? '').trim() === 'PONG'), 'nodes up');
    const created = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((p) => `127.0.0.1:${p}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8' },
    );
    if (created.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);
    await until(() => clusterOk(ports), 'cluster_state:ok on every node');
  } catch (error) {
    stop();
    throw error;
  }
  return { nodes, stop };
}
