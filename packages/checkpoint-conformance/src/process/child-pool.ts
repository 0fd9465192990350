import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ChildOpener, ChildTask } from './child-spec.js';

/** The child's entry point: plain JavaScript beside `dist/` and `src/`, so both find it at the same place. */
const RUNNER = fileURLToPath(new URL('../../child/run-child.mjs', import.meta.url));
const MARK = '@flow-kit-child ';

interface Answer {
  id: number;
  result?: unknown;
  error?: { name?: string; code?: string; message?: string; stack?: string };
}

function href(ref: string | URL): string {
  return ref instanceof URL ? ref.href : ref;
}

/** One node process running child/run-child.mjs, answering one command at a time. */
class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<void>;
  #stderr = '';
  #nextId = 0;
  readonly #waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #gone: Error | undefined;

  constructor(readonly index: number) {
    this.process = spawn(process.execPath, [RUNNER, String(index)], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.process.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    createInterface({ input: this.process.stdout! }).on('line', (line) => {
      if (!line.startsWith(MARK)) return;
      const answer = JSON.parse(line.slice(MARK.length)) as Answer;
      const waiter = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      if (answer.error) waiter?.reject(this.#failure('failed', answer.error));
      else waiter?.resolve(answer.result);
    });
    this.process.stdin!.on('error', () => {}); // a dead child is reported through 'exit'
    this.exited = new Promise((resolve) => {
      const gone = (what: string) => {
        this.#gone ??= this.#failure(what);
        for (const waiter of this.#waiting.values()) waiter.reject(this.#gone);
        this.#waiting.clear();
        resolve();
      };
      this.process.once('error', (error) => gone(`could not start: ${error.message}`));
      this.process.once('exit', (code, signal) => gone(`exited (${signal ?? code})`));
    });
  }

  #failure(what: string, error?: Answer['error']): Error {
    return new Error(
      `child ${this.index} (pid ${this.process.pid}) ${what}` +
        (error ? `: ${error.stack ?? error.message}` : '') +
        (this.#stderr ? `\nstderr: ${this.#stderr}` : ''),
    );
  }

  send(op: string, args: Record<string, unknown> = {}): Promise<unknown> {
    if (this.#gone) return Promise.reject(this.#gone);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      this.process.stdin!.write(`${JSON.stringify({ id, op, ...args })}\n`);
    });
  }

  get alive(): boolean {
    return this.#gone === undefined;
  }
}

/**
 * A set of node processes that can each open a checkpointer and run a task on it, so a test can make
 * several processes race on one storage. Starting node is the slow part, so a pool is started once and
 * reused: each `run` opens the storage in every child, waits until all are open, starts the task in all
 * of them at once, and closes the storage again. A pool whose run failed or timed out is killed; the next
 * `run` starts a fresh one.
 */
export class ChildPool {
  #children: Child[] = [];

  constructor(
    /** How many processes. */
    readonly size: number,
  ) {}

  /**
   * Runs `task` in every child on the storage `opener` opens; resolves with each child's result, in child
   * order. Rejects (and kills the pool) when a child fails or the run outlasts `timeoutMs` (default 60 s).
   */
  async run<R = unknown>(
    opener: ChildOpener,
    task: ChildTask,
    params?: unknown,
    timeoutMs = 60_000,
  ): Promise<R[]> {
    if (this.#children.length === 0 || !this.#children.every((c) => c.alive)) {
      await this.close();
      this.#children = Array.from({ length: this.size }, (_, i) => new Child(i));
    }
    const children = this.#children;
    const wire = {
      opener: { ...opener, module: href(opener.module), args: opener.args ?? [] },
      task: { ...task, module: href(task.module) },
    };
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.size} child processes did not finish in ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    const all = <T>(promises: Promise<T>[]) => Promise.race([Promise.all(promises), timeout]);
    try {
      await all(children.map((c) => c.send('open', { opener: wire.opener })));
      const results = await all(
        children.map((c) => c.send('run', { task: wire.task, params: params ?? null })),
      );
      await all(children.map((c) => c.send('close')));
      return results as R[];
    } catch (error) {
      await this.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends every child: it closes its checkpointer and exits; one that does not within 5 s is killed. */
  async close(): Promise<void> {
    const children = this.#children;
    this.#children = [];
    for (const child of children) child.process.stdin!.end();
    const late = setTimeout(() => {
      for (const child of children) if (child.alive) child.process.kill('SIGKILL');
    }, 5_000);
    await Promise.all(children.map((c) => c.exited));
    clearTimeout(late);
  }
}

/** Options of `runInChildren`. */
export interface RunInChildrenOptions {
  /** How each child opens the storage. */
  opener: ChildOpener;
  /** What each child runs once every child has the storage open. */
  task: ChildTask;
  /** How many child processes to start. */
  count: number;
  /** JSON parameters handed to the task in every child (each child also learns its `index`). */
  params?: unknown;
  /** How long the run may take before every child is killed and the call rejects. @default 60000 */
  timeoutMs?: number;
}

/**
 * Starts `count` node processes on one storage, runs `task` in all of them at once, and resolves with each
 * child's result in child order (a one-off `ChildPool`). The kit's "process races" suite is built on the
 * same pool; use it for races of your own, such as an engine on top of your backend.
 *
 * @example
 * const results = await runInChildren<{ won: boolean }>({
 *   opener: { module: new URL('../dist/index.js', import.meta.url), export: 'MyCheckpointer', args: [dir] },
 *   task: { module: new URL('./fixtures/my-task.mjs', import.meta.url), export: 'race' },
 *   count: 8,
 *   params: { thread: 't' },
 * });
 */
export async function runInChildren<R = unknown>(options: RunInChildrenOptions): Promise<R[]> {
  const pool = new ChildPool(options.count);
  try {
    return await pool.run<R>(options.opener, options.task, options.params, options.timeoutMs);
  } finally {
    await pool.close();
  }
}
