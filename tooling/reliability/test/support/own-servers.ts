import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePorts } from '@flow/test-db';

const run = promisify(execFile);

/**
 * A database server of the test's own (never the shared one): started on a free loopback port with its data
 * in a temp directory, stopped and started again by the test, removed at the end.
 */
export interface OwnServer {
  readonly url: string;
  /** Stops the server: Postgres with `pg_ctl stop -m <mode>`, Redis with SIGKILL. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

/** The newest Postgres server binaries the machine has (Debian keeps them under /usr/lib/postgresql/N/bin). */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0] === undefined) {
    throw new Error(
      `no Postgres server binaries (initdb, pg_ctl) under ${root}: the server-restart test starts a cluster of its own; install the postgresql package`,
    );
  }
  return join(root, versions[0], 'bin');
}

/**
 * A Postgres cluster of the test's own: `initdb` into a temp directory and `pg_ctl` on a free port, trust
 * authentication, user postgres. Postgres refuses to run as root, so as root it runs as the postgres user.
 */
export async function startPostgresServer(): Promise<OwnServer> {
  const bin = postgresBin();
  const [port] = (await freePorts(1)) as [number];
  const base = mkdtempSync(join(tmpdir(), 'flow-rel-pg-'));
  const data = join(base, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(base, uid, Number(gid.trim()));
  }
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', join(bin, tool), ...args]) : run(join(bin, tool), args);
  await pg('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const options = [
    `-p ${port}`,
    `-k ${base}`,
    '-c listen_addresses=127.0.0.1',
    '-c shared_buffers=16MB',
    '-c max_connections=60',
  ].join(' ');
  const start = async () => {
    await pg('pg_ctl', [
      '-D',
      data,
      '-l',
      join(base, 'server.log'),
      '-o',
      options,
      '-w',
      '-t',
      '60',
      'start',
    ]);
  };
  const stop = async (mode: 'fast' | 'immediate' = 'immediate') => {
    await pg('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
  };
  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop,
    start,
    destroy: async () => {
      await stop('immediate').catch(() => {});
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * A Redis server of the test's own on a free port, with every write in the append-only file and fsynced
 * before the reply (`appendonly yes`, `appendfsync always`): what survives a SIGKILL of the server.
 */
export async function startRedisServer(): Promise<OwnServer> {
  const [port] = (await freePorts(1)) as [number];
  const dir = mkdtempSync(join(tmpdir(), 'flow-rel-redis-'));
  let server: ChildProcess | undefined;
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--save',
          '',
          '--dir',
          dir,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      server = child;
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output = (output + chunk).slice(-4000);
        if (/Ready to accept connections/.test(output)) resolve();
      });
      child.once('error', reject);
      child.once('exit', (code) =>
        reject(new Error(`redis-server ended (${code}) before it was ready: ${output}`)),
      );
    });
  const stop = async () => {
    const child = server;
    server = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    destroy: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
