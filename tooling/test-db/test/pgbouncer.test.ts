import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { ownDir, stopOwnedNow } from '../src/own-daemon.js';
import { startPgBouncer } from '../src/pgbouncer.js';
import { probePostgres } from '../src/probe.js';

const server = inject('flowTestPostgresUrl');

const answers = (url: string) =>
  probePostgres(url, 500).then(
    () => true,
    () => false,
  );

async function gone(url: string): Promise<boolean> {
  for (let i = 0; i < 30; i++) {
    if (!(await answers(url))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

const pidOf = (dir: string) => Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim());

describe('startPgBouncer', () => {
  it('gives two runs at once bouncers of their own: stopping one leaves the other answering', async () => {
    const [a, b] = await Promise.all([startPgBouncer(server), startPgBouncer(server)]);
    try {
      expect(a.url).toMatch(/^postgres:\/\/[^@]*@127\.0\.0\.1:\d+\//);
      expect(new URL(a.url).port).not.toBe(new URL(b.url).port);
      expect(a.dir).not.toBe(b.dir);
      await probePostgres(a.url);
      await probePostgres(b.url);
      await a.stop();
      expect(await gone(a.url)).toBe(true);
      expect(existsSync(a.dir)).toBe(false);
      await probePostgres(b.url);
    } finally {
      await a.stop();
      await b.stop();
    }
    expect(await gone(b.url)).toBe(true);
  });

  it('stops what this process still owns when it exits', async () => {
    const bouncer = await startPgBouncer(server);
    stopOwnedNow(); // what the process's exit handler runs
    expect(await gone(bouncer.url)).toBe(true);
    expect(existsSync(bouncer.dir)).toBe(false);
  });

  it("sweeps a bouncer whose run died before stopping it, and leaves a live run's alone", async () => {
    const live = await startPgBouncer(server);
    const orphan = await startPgBouncer(server);
    try {
      // As a run killed outright leaves it: the owner file names a process that has exited.
      const dead = spawnSync('true').pid!;
      writeFileSync(join(orphan.dir, 'owner'), `${dead} 1\n`);
      const orphanPid = pidOf(orphan.dir);
      const next = await startPgBouncer(server);
      await next.stop();
      expect(await gone(orphan.url)).toBe(true);
      expect(existsSync(`/proc/${orphanPid}`)).toBe(false);
      expect(existsSync(orphan.dir)).toBe(false);
      await probePostgres(live.url);
    } finally {
      await orphan.stop();
      await live.stop();
    }
  });

  it('never signals a process the pid file names once it is no longer a pgbouncer', async () => {
    const dir = ownDir('pgbouncer', 'pgbouncer');
    // A reused pid: this very worker. A SIGTERM would end it, and the run with it, before the wait is over.
    writeFileSync(join(dir, 'pgbouncer.pid'), `${process.pid}\n`);
    stopOwnedNow();
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(dir)).toBe(false);
  });
});
