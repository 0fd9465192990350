import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The child scripts of these tests. */
export const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

/** A child node process running a fixture, with every stdout line it printed and a way to wait for one. */
export interface Child {
  readonly process: ChildProcess;
  readonly lines: string[];
  /** Resolves with the first line (already printed or to come) that matches, or rejects when the child ends. */
  line(pattern: RegExp): Promise<string>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
}

export function startChild(script: string, args: readonly string[], env?: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, [join(FIXTURES, script), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: env ?? process.env,
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters.filter((x) => x.pattern.test(line))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close' rather than 'exit': every line the child wrote has been read by then.
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return {
    process: child,
    lines,
    exited,
    stderr: () => stderr,
    line(pattern) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        exited.then(({ code, signal }) =>
          reject(
            new Error(`child ${script} ended (${signal ?? code}) before printing ${pattern}: ${stderr}`),
          ),
        );
      });
    },
  };
}

/** A random integer in [min, max]. */
export function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}
