import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkerProcessArgs } from './worker-graph.js';

// The built script, also when the bench's own tests run this file from src/ (they run after the build).
const SCRIPT = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../../dist/workloads/worker-process.js' : './worker-process.js',
    import.meta.url,
  ),
);

/** A worker process of the bench, driven over its stdin. */
export interface WorkerChild {
  readonly pid: number;
  /** Resolves once the process opened the store (its worker not started yet). */
  readonly ready: Promise<void>;
  /** Starts its worker. */
  go(): void;
  /** Stops its worker (it drains) and resolves once it has; the process stays, for another `go`. */
  pause(): Promise<void>;
  /** Stops its worker (it drains) and waits for the process to exit. */
  stop(): Promise<void>;
  /** SIGKILLs it and waits for the exit. */
  kill(): Promise<void>;
  readonly exited: Promise<void>;
  /** What it printed on stderr (its worker's log lines), for a failure message. */
  stderr(): string;
}

export function spawnWorker(args: WorkerProcessArgs): WorkerChild {
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(args)], { stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  const waiters: { line: string; seen: number; resolve: () => void }[] = [];
  const count = (line: string) => out.split('\n').filter((l) => l === line).length;
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    for (const w of [...waiters]) {
      if (count(w.line) > w.seen) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  });
  /** Resolves when `line` is printed once more than it has been so far. */
  const next = (line: string) =>
    new Promise<void>((resolve, reject) => {
      waiters.push({ line, seen: count(line), resolve });
      void exited.then(() => reject(new Error(`worker process exited before "${line}": ${err.trim()}`)));
    });
  const ready = next('ready');
  return {
    pid: child.pid ?? -1,
    ready,
    exited,
    go: () => child.stdin.write('go\n'),
    async pause() {
      const paused = next('paused');
      child.stdin.write('pause\n');
      await paused;
    },
    async stop() {
      child.stdin.write('stop\n');
      await exited;
    },
    async kill() {
      child.kill('SIGKILL');
      await exited;
    },
    stderr: () => err,
  };
}
