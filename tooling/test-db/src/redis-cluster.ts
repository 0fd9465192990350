import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { freePorts, ownDir, stopDaemons, sweepOrphans } from './own-daemon.js';

/** A Redis Cluster on loopback of this process's own, and how to stop it. */
export interface RedisClusterHandle {
  /** `host:port` of every primary, to hand to ioredis' `Cluster`. */
  nodes: { host: string; port: number }[];
  /** The nodes' config, pid and log files (removed by `stop`). */
  dir: string;
  /** Shuts this cluster's nodes down and removes their files; no other cluster is touched. */
  stop(): Promise<void>;
}

function cli(port: number, ...args: string[]) {
  return spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });
}

function clusterOk(ports: readonly number[]): boolean {
  return ports.every((port) => /cluster_state:ok/.test(cli(port, 'CLUSTER', 'INFO').stdout ?? ''));
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`the test Redis Cluster: ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts `ports.length` cluster-enabled nodes (bus on `busPorts`) in `dir` and joins them as primaries. */
async function startOn(ports: readonly number[], busPorts: readonly number[], dir: string): Promise<void> {
  for (const [i, port] of ports.entries()) {
    const started = spawnSync(
      'redis-server',
      [
        ...['--port', String(port), '--bind', '127.0.0.1', '--daemonize', 'yes'],
        ...['--pidfile', join(dir, `redis-${port}.pid`), '--logfile', join(dir, `redis-${port}.log`)],
        ...['--cluster-enabled', 'yes', '--cluster-port', String(busPorts[i])],
        ...['--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '5000'],
        ...['--dir', dir, '--save', '', '--appendonly', 'no'],
      ],
      { encoding: 'utf8' },
    );
    if (started.error !== undefined || started.status !== 0) {
      throw new Error(
        `cannot start redis-server on port ${port}: ${started.error?.message ?? started.stderr}`,
      );
    }
  }
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
}

/**
 * Starts a Redis Cluster of `size` primaries (no replicas, no persistence) of this process's own: the
 * system's `redis-server --cluster-enabled yes` on ports the OS picked (client and bus ports alike), joined
 * with `redis-cli --cluster create … --cluster-yes`, with its files in a temp directory of its own. `stop()`
 * (or this process's exit) ends it; clusters left by runs that died are swept first. Ports taken between the
 * pick and the bind are tried again on others.
 *
 * @throws when `redis-server` or `redis-cli` is missing, or the cluster does not form
 */
export async function startRedisCluster(size = 3): Promise<RedisClusterHandle> {
  await sweepOrphans('redis-cluster', 'redis-server');
  for (let attempt = 1; ; attempt++) {
    const picked = await freePorts(size * 2);
    const ports = picked.slice(0, size);
    const dir = ownDir('redis-cluster', 'redis-server');
    try {
      await startOn(ports, picked.slice(size), dir);
      return {
        nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
        dir,
        stop: () => stopDaemons(dir),
      };
    } catch (error) {
      await stopDaemons(dir);
      if (attempt === 2 || String(error).includes('cannot start')) throw error;
    }
  }
}
