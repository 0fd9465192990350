import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { freePorts, ownDir, stopDaemons, sweepOrphans } from './own-daemon.js';
import { probePostgres } from './probe.js';

/** A PgBouncer in transaction-pooling mode in front of a Postgres server, and how to stop it. */
export interface PgBouncer {
  /** URL of the same database as the server's URL, through PgBouncer. */
  url: string;
  /** Its config, pid file and log (removed by `stop`). */
  dir: string;
  /** Stops this bouncer and removes its files; no other bouncer is touched. */
  stop(): Promise<void>;
}

function throughBouncer(serverUrl: string, port: number): string {
  const url = new URL(serverUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  url.password = '';
  return url.toString();
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

/** Starts the system's `pgbouncer` as a daemon on `port` with its files in `dir`; resolves once it answers. */
async function startOn(serverUrl: string, port: number, dir: string): Promise<void> {
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
      `cannot start pgbouncer (install the "pgbouncer" package): ${started.error?.message ?? started.stderr}`,
    );
  }
  const url = throughBouncer(serverUrl, port);
  for (let i = 0; i < 50; i++) {
    if (
      await probePostgres(url, 1000).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  let log = '(no log)';
  try {
    log = readFileSync(join(dir, 'pgbouncer.log'), 'utf8').slice(-2000);
  } catch {}
  throw new Error(`pgbouncer on port ${port} did not answer:\n${log}`);
}

/**
 * Starts a PgBouncer of this process's own in transaction-pooling mode in front of `serverUrl`: the system's
 * `pgbouncer` as a daemon (as `nobody` when run as root, which PgBouncer refuses to be), on a port the OS
 * picked, with its files in a temp directory of its own. It fronts that server only, and `stop()` (or this
 * process's exit) ends it; bouncers left by runs that died are swept first. A port taken between the pick and
 * the bind is tried again on another.
 *
 * @throws when `pgbouncer` is not installed or does not come up (the message says so, with its log)
 */
export async function startPgBouncer(serverUrl: string): Promise<PgBouncer> {
  await sweepOrphans('pgbouncer', 'pgbouncer');
  for (let attempt = 1; ; attempt++) {
    const [port] = (await freePorts(1)) as [number];
    const dir = ownDir('pgbouncer', 'pgbouncer');
    try {
      await startOn(serverUrl, port, dir);
      return { url: throughBouncer(serverUrl, port), dir, stop: () => stopDaemons(dir) };
    } catch (error) {
      await stopDaemons(dir);
      if (attempt === 3 || String(error).includes('cannot start')) throw error;
    }
  }
}
