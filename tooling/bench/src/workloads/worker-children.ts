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
  const ready = new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('ready\n')) resolve();
    });
    void exited.then(() => reject(new Error(`worker process exited before it was ready: ${err.trim()}`)));
  });
  return {
    pid: child.pid ?? -1,
    ready,
    exited,
    go: () => child.stdin.write('go\n'),
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
