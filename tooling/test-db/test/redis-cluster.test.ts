import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ensureRedisCluster } from '../src/redis-cluster.js';

// Ports of its own, so this test never stops the cluster the Redis suites use.
const PORTS = [7004, 7005, 7006];

const info = (port: number) =>
  spawnSync('redis-cli', ['-p', String(port), 'CLUSTER', 'INFO'], { encoding: 'utf8' }).stdout ?? '';

describe('ensureRedisCluster', () => {
  it('forms a cluster of three primaries, reuses it when healthy, and stop() ends only the one it started', async () => {
    const first = await ensureRedisCluster(PORTS);
    try {
      expect(first.nodes).toEqual(PORTS.map((port) => ({ host: '127.0.0.1', port })));
      for (const port of PORTS) {
        expect(info(port)).toMatch(/cluster_state:ok/);
        expect(info(port)).toMatch(/cluster_size:3/);
      }
      const again = await ensureRedisCluster(PORTS);
      again.stop();
      expect(info(PORTS[0]!)).toMatch(/cluster_state:ok/);
    } finally {
      first.stop();
    }
    for (let i = 0; i < 30 && PORTS.some((p) => info(p) !== ''); i++)
      await new Promise((r) => setTimeout(r, 100));
    expect(PORTS.map(info)).toEqual(['', '', '']);
  }, 30_000);
});
