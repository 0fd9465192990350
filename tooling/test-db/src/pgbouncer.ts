import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { probePostgres } from './probe.js';

/** Where the test PgBouncer listens unless `FLOW_TEST_PGBOUNCER_URL` names another. */
export const PGBOUNCER_PORT = 7010;

/** A PgBouncer in transaction-pooling mode in front of a Postgres server, and how to stop it. */
export interface PgBouncer {
  /** URL of the same database as the server's URL, through PgBouncer. */
  url: string;
  /** Stops PgBouncer if this call started it; leaves one that was already running alone. */
  stop(): void;
}

function throughBouncer(serverUrl: string, port: number): string {
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  url.password = '';
  return url.toString();
}

/**
 * Which server answers at `url`: its start time, to the microsecond (a public function, so any user can ask).
 * Undefined when it cannot be asked.
 */
async function serverIdentity(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000, query_timeout: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ started: string }>(
      'SELECT pg_postmaster_start_time()::text AS started',
    );
    return rows[0]?.started;
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Stops the daemon our pid file names, if that process is still a pgbouncer (a pid may have been reused), and
 * waits up to 5 s for it to be gone.
 */
async function stopDaemon(dir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8').trim());
    if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pgbouncer')) return;
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // No pid file, or that process is already gone.
  }
  for (let i = 0; i < 50 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 100));
}

/** The pgbouncer.ini of a transaction-pooling bouncer that forwards every database to `server`. */
function config(server: URL, port: number, dir: string): string {
  const target = [`host=${server.hostname}`, `port=${server.port || '5432'}`];
  // The server may want a password the clients of the bouncer (trusted, on loopback) do not give.
  if (server.username) target.push(`user=${decodeURIComponent(server.username)}`);
  if (server.password) target.push(`password=${decodeURIComponent(server.password)}`);
  return [
    '[databases]',
    `* = ${target.join(' ')}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'users.txt')}`,
    'pool_mode = transaction',
    'max_client_conn = 1000',
    'default_pool_size = 20',
    // pg sends these at connect; PgBouncer refuses unknown startup parameters unless told to ignore them.
    'ignore_startup_parameters = extra_float_digits,options,statement_timeout',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n');
}

/**
 * Makes sure a PgBouncer in transaction-pooling mode answers on `port` in front of `serverUrl`: reuses one
 * that already answers in front of that same server (so CI may start it beforehand, and parallel runs share
 * it); replaces one of ours that fronts another server (stopped by its pid file); else starts the
 * system's `pgbouncer` as a daemon (as `nobody` when run as root, which PgBouncer refuses to be).
 *
 * @throws when `pgbouncer` is not installed or does not come up within a few seconds (the message says so)
 */
export async function ensurePgBouncer(serverUrl: string, port = PGBOUNCER_PORT): Promise<PgBouncer> {
  const url = throughBouncer(serverUrl, port);
  const answers = () =>
    probePostgres(url, 1000).then(
      () => true,
      () => false,
    );
  const dir = join(tmpdir(), `flow-pgbouncer-${port}`);
  if (await answers()) {
    // Reused only when it fronts this very server: one left by a run against another server (an earlier cell
    // of the version matrix, a run that was killed) would quietly test that server instead.
    const [ours, theirs] = await Promise.all([serverIdentity(serverUrl), serverIdentity(url)]);
    if (ours === undefined || ours === theirs) return { url, stop: () => {} };
    await stopDaemon(dir);
    if (await answers()) {
      throw new Error(
        `the PgBouncer on port ${port} fronts another Postgres server than this run's and is not ours to stop ` +
          '(no pid file of ours names it): stop it, or name another one with FLOW_TEST_PGBOUNCER_URL',
      );
    }
  } else {
    // One of ours that does not answer (its server is gone: an earlier matrix cell's container) holds the
    // port and the pid file: stopped first, or the new one could not start.
    await stopDaemon(dir);
  }
  mkdirSync(dir, { recursive: true });
  // The daemon runs as another user when we are root: it must read its files and write its log here.
  chmodSync(dir, 0o777);
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(ini, config(new URL(serverUrl), port, dir), { mode: 0o644 });
  // Even with trust, PgBouncer admits only the users its auth file lists.
  const user = decodeURIComponent(new URL(serverUrl).username || userInfo().username).replaceAll('"', '""');
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`, { mode: 0o644 });
  const asRoot = userInfo().uid === 0;
  const started = spawnSync('pgbouncer', ['-d', ...(asRoot ? ['-u', 'nobody'] : []), ini], {
    encoding: 'utf8',
  });
  if (started.error !== undefined || started.status !== 0) {
    throw new Error(
      `cannot start pgbouncer on port ${port} (install the "pgbouncer" package): ` +
        `${started.error?.message ?? started.stderr}`,
    );
  }
  const stop = () => {
    void stopDaemon(dir);
  };
  for (let i = 0; i < 50 && !(await answers()); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await answers())) {
    stop();
    const log = (() => {
      try {
        return readFileSync(join(dir, 'pgbouncer.log'), 'utf8').slice(-2000);
      } catch {
        return '(no log)';
      }
    })();
    throw new Error(`pgbouncer on port ${port} did not answer:\n${log}`);
  }
  return { url, stop };
}
