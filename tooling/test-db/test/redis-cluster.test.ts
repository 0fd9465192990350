import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startRedisCluster } from '../src/redis-cluster.js';

const info = (port: number) =>
  spawnSync('redis-cli', ['-p', String(port), 'CLUSTER', 'INFO'], { encoding: 'utf8' }).stdout ?? '';

async function down(ports: readonly number[]): Promise<boolean> {
  for (let i = 0; i < 30 && ports.some((p) => info(p) !== ''); i++)
    await new Promise((r) => setTimeout(r, 100));
  return ports.every((p) => info(p) === '');
}

describe('startRedisCluster', () => {
  it('gives two runs at once clusters of their own: stopping one leaves the other healthy', async () => {
    const [a, b] = await Promise.all([startRedisCluster(), startRedisCluster()]);
    const portsOf = (c: typeof a) => c.nodes.map((n) => n.port);
    try {
      expect(a.nodes).toHaveLength(3);
      expect(new Set([...portsOf(a), ...portsOf(b)]).size).toBe(6);
      for (const port of [...portsOf(a), ...portsOf(b)]) {
        expect(info(port)).toMatch(/cluster_state:ok/);
        expect(info(port)).toMatch(/cluster_size:3/);
      }
      await a.stop();
      expect(await down(portsOf(a))).toBe(true);
      expect(existsSync(a.dir)).toBe(false);
      for (const port of portsOf(b)) expect(info(port)).toMatch(/cluster_state:ok/);
    } finally {
      await a.stop();
      await b.stop();
    }
    expect(await down(portsOf(b))).toBe(true);
  }, 60_000);
});
