import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Daemons a test run starts for itself (a PgBouncer, the nodes of a Redis Cluster). Each listens on ports the
 * OS picked and keeps its files in a temp directory of its own, so two checkouts testing at once never share
 * one, and one run's teardown never stops another's. A run stops its daemons at teardown and, failing that,
 * when its process exits; a run killed outright leaves its directory behind, with its owner's pid, for the
 * next run of the same kind to sweep.
 */

const OWNER_FILE = 'owner';
const owned = new Map<string, string>(); // directory -> the daemons' binary name
let exitHook = false;

/** `count` distinct loopback ports nobody listens on right now (held together while the OS picks them). */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    }
    return servers.map((s) => (s.address() as { port: number }).port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

/** A process's start time since boot (field 22 of /proc/<pid>/stat), so a reused pid is told apart. */
function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * A fresh directory `$TMPDIR/flow-<kind>-…` for daemons of `binary` (world-writable: PgBouncer runs as
 * `nobody` under root), recorded as this process's until `stopDaemons` removes it.
 */
export function ownDir(kind: string, binary: string): string {
  const dir = mkdtempSync(join(tmpdir(), `flow-${kind}-`));
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, OWNER_FILE), `${process.pid} ${startTime(process.pid)}\n`);
  if (!exitHook) process.once('exit', stopOwnedNow);
  exitHook = true;
  owned.set(dir, binary);
  return dir;
}

/** The live processes of `binary` that the pid files in `dir` name. */
function daemonPids(dir: string, binary: string): number[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.pid'));
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const file of files) {
    try {
      const pid = Number(readFileSync(join(dir, file), 'utf8').trim());
      // A pid may have been reused by another process since: signal only one that is still the daemon.
      if (pid > 0 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(binary)) pids.push(pid);
    } catch {
      // No such process any more, or the file is half written.
    }
  }
  return pids;
}

function terminate(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
}

/** Stops the daemons of `dir` (SIGTERM, then up to 5 s for them to be gone) and removes the directory. */
export async function stopDaemons(dir: string): Promise<void> {
  const binary = owned.get(dir) ?? '';
  const pids = daemonPids(dir, binary);
  terminate(pids);
  for (let i = 0; i < 50 && pids.some((pid) => existsSync(`/proc/${pid}`)); i++)
    await new Promise((r) => setTimeout(r, 100));
  rmSync(dir, { recursive: true, force: true });
  owned.delete(dir);
}

/** At process exit, synchronously: signals every daemon this process still owns and removes their files. */
export function stopOwnedNow(): void {
  for (const [dir, binary] of owned) {
    terminate(daemonPids(dir, binary));
    rmSync(dir, { recursive: true, force: true });
  }
  owned.clear();
}

/**
 * Stops the daemons of `binary` left in `$TMPDIR/flow-<kind>-*` by processes that are gone (a run killed
 * before its teardown and its exit handler), and removes their directories. Resolves with how many.
 */
export async function sweepOrphans(kind: string, binary: string): Promise<number> {
  const root = tmpdir();
  let swept = 0;
  for (const name of readdirSync(root)) {
    if (!name.startsWith(`flow-${kind}-`)) continue;
    const dir = join(root, name);
    let owner: string;
    try {
      owner = readFileSync(join(dir, OWNER_FILE), 'utf8').trim();
    } catch {
      continue; // Not one of ours, or still being set up.
    }
    const [pid, started] = owner.split(' ');
    if (startTime(Number(pid)) === started) continue; // Its run is alive.
    owned.set(dir, binary);
    await stopDaemons(dir);
    swept++;
  }
  return swept;
}
