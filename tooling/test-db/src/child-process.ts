import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A child node process running a script, with every stdout line it printed and a way to wait for one. */
export interface Child {
  readonly process: ChildProcess;
  /** Every stdout line so far (the array grows as the child prints). */
  readonly lines: string[];
  /** Resolves with the first line (already printed or to come) that matches, or rejects when the child ends. */
  line(pattern: RegExp): Promise<string>;
  /** Resolves once the child ended and every line it wrote has been read. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last 8000 characters of its stderr. */
  stderr(): string;
}

/** Options of `startChild`. */
export interface StartChildOptions {
  /** The child's environment. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Keep a pipe to the child's stdin (`child.process.stdin`), for tests that release children on cue. */
  stdin?: boolean;
}

/** Starts `node <script> ...args`. */
export function startChild(script: string, args: readonly string[], options: StartChildOptions = {}): Child {
  const child = spawn(process.execPath, [script, ...args], {
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: options.env ?? process.env,
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8000);
  });
  createInterface({ input: child.stdout! }).on('line', (line) => {
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
