import { type Checkpointer, compareThreadIds, InvalidArgumentError } from '@flow/core';
import type { CompiledGraph } from './compiled-graph.js';
import { NoCheckpointer } from './errors.js';
import { MisroutedError } from './routing.js';
import { W, type WorkerOptions, type WorkerSettings, workerSettings } from './worker-options.js';
import { TAKE_FOR_WORKER } from './worker-take.js';

/** What `createWorker` returns. */
export interface Worker {
  /** The id its log lines carry. */
  readonly id: string;
  /** Starts looking for runs to take (again, after `stop`); a second call while started does nothing. */
  start(): void;
  /**
   * Stops taking runs. Resolves once every run in flight committed its current super-step (or stopped
   * earlier) and released its lease; those runs stay running, for a worker to take up later.
   */
  stop(): Promise<void>;
}

/** Threads read per `listThreads` page while looking for work. */
const PAGE = 100;
/** The longest wait between tries while the store is unreachable (unless `pollMs` is longer). */
const MAX_BACKOFF_MS = 30_000;

/** The longest wait before a worker tries again a thread whose take failed on its own. */
const MAX_THREAD_BACKOFF_MS = 300_000;

/** Another call has the run (or it is gone): not a failure of this worker. */
const TAKEN_ELSEWHERE = new Set(['THREAD_BUSY', 'ALREADY_RESUMED', 'THREAD_NOT_FOUND', 'RUN_CANCELLED']);
/** The run failed, and the engine recorded it on the thread. */
const RECORDED_FAILURE = new Set(['NODE_FAILED', 'STEP_LIMIT', 'INVALID_UPDATE', 'SERIALIZATION']);

const q = JSON.stringify;

/** One line about an error: its name, code and the first line of its message, never state. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${typeof error}`;
  const code = (error as { code?: unknown }).code;
  const text = `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${error.message.split('\n')[0]}`;
  return text.length > 300 ? `${text.slice(0, 297)}...` : text;
}

/** A copy of `items` in a random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** One start…stop of a worker. */
interface Session {
  stopping: boolean;
}

/**
 * A worker for `app`: it takes threads that are running with no live lease (runs whose process died, and
 * enqueued runs) and resumes them, at most `concurrency` at a time. Many workers may share one store. See
 * docs/workers.md.
 */
export function createWorker(app: CompiledGraph<any>, options?: WorkerOptions): Worker {
  if (typeof (app as { [TAKE_FOR_WORKER]?: unknown } | null)?.[TAKE_FOR_WORKER] !== 'function') {
    throw new InvalidArgumentError(`${W}createWorker needs a compiled graph (StateGraph#compile())`);
  }
  const settings = workerSettings(options);
  const checkpointer = app.checkpointer;
  if (checkpointer === undefined) throw new NoCheckpointer('createWorker()');
  return new GraphWorker(app, checkpointer, settings);
}

class GraphWorker implements Worker {
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #wakers = new Set<() => void>();
  /** Threads whose last take failed for a reason of their own (not the store's), and when to try again. */
  readonly #troubled = new Map<string, { failures: number; until: number }>();
  #session: Session | undefined;
  #loop: Promise<void> = Promise.resolve();

  constructor(
    readonly app: CompiledGraph<any>,
    readonly checkpointer: Checkpointer,
    readonly settings: WorkerSettings,
  ) {}

  get id(): string {
    return this.settings.id;
  }

  start(): void {
    if (this.#session !== undefined && !this.#session.stopping) return;
    const session: Session = { stopping: false };
    this.#session = session;
    const previous = this.#loop;
    this.#loop = previous.then(() => this.#run(session));
  }

  async stop(): Promise<void> {
    if (this.#session !== undefined) this.#session.stopping = true;
    this.#wakeUp();
    await this.#loop;
    await Promise.all(this.#inFlight.values());
  }

  /** Looks for runs until stopped; a failure to reach the store waits longer each time, up to a cap. */
  async #run(session: Session): Promise<void> {
    const { pollMs } = this.settings;
    let failures = 0;
    while (!session.stopping) {
      let wait = pollMs;
      try {
        await this.#fill(session);
        failures = 0;
      } catch (error) {
        failures = Math.min(failures + 1, 30);
        wait = Math.min(pollMs * 2 ** (failures - 1), Math.max(pollMs, MAX_BACKOFF_MS));
        this.#say(`cannot reach the store (${describe(error)}); trying again in ${wait} ms`);
      }
      // A run that ends wakes the worker early: its slot is free for the next run.
      await this.#pause(wait, session);
    }
  }

  /**
   * Takes runnable threads into the free slots. It pages from a random point in thread order, wraps around,
   * and tries each page in a random order, so workers that look at the same moment mostly try different
   * threads first (whatever the thread ids look like).
   */
  async #fill(session: Session): Promise<void> {
    let free = this.settings.concurrency - this.#inFlight.size;
    if (free <= 0) return;
    const start = Math.random().toString(16).slice(2);
    // The running threads this pass lists: a troubled thread no longer among them (deleted, finished or
    // failed elsewhere) loses its backoff, so the map does not grow and a new run under its id is not held back.
    const listed = new Set<string>();
    for (const wrapped of [false, true]) {
      let after = wrapped ? undefined : start;
      for (;;) {
        const page = await this.checkpointer.listThreads({ status: 'running', after, limit: PAGE });
        const last = page[page.length - 1]?.thread;
        // The second pass ends where the first began.
        const past = wrapped && last !== undefined && compareThreadIds(last, start) > 0;
        for (const { thread } of shuffled(page)) {
          listed.add(thread);
          if (past && compareThreadIds(thread, start) > 0) continue;
          if (session.stopping) return;
          if (this.#inFlight.has(thread)) continue;
          if ((this.#troubled.get(thread)?.until ?? 0) > Date.now()) continue;
          // A live lease: another call runs it (core answers none for an owner known to be gone).
          if ((await this.checkpointer.getLease(thread)) !== undefined) continue;
          const run = this.#take(thread, session).finally(() => {
            this.#inFlight.delete(thread);
            this.#wakeUp();
          });
          this.#inFlight.set(thread, run);
          free -= 1;
          if (free === 0) return;
        }
        if (past || page.length < PAGE || last === undefined) break;
        after = last;
      }
    }
    for (const thread of this.#troubled.keys()) if (!listed.has(thread)) this.#troubled.delete(thread);
  }

  /** Resumes one thread; never rejects (what happened goes to the log when it is worth a line). */
  async #take(thread: string, session: Session): Promise<void> {
    const { maxRecoveries } = this.settings;
    try {
      const outcome = await this.app[TAKE_FOR_WORKER](thread, {
        maxRecoveries,
        stopping: () => session.stopping,
      });
      this.#troubled.delete(thread);
      if (outcome === 'poisoned') {
        this.#say(
          `run ${q(thread)} marked failed: taken up ${maxRecoveries} times without committing a step (maxRecoveries)`,
        );
      }
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (typeof code === 'string' && TAKEN_ELSEWHERE.has(code)) {
        if (code === 'THREAD_NOT_FOUND') this.#troubled.delete(thread);
        return;
      }
      if ((typeof code === 'string' && RECORDED_FAILURE.has(code)) || error instanceof MisroutedError) {
        const node = (error as { node?: unknown }).node;
        const at = typeof node === 'string' ? ` at node ${q(node)}` : '';
        this.#say(`run ${q(thread)} failed${at} (${code}), recorded on the thread`);
        return;
      }
      // The same thread failing again (a graph that lacks its node, a corrupt record) waits longer each
      // time, so one bad thread costs a log line per wait, not one per poll.
      const failures = (this.#troubled.get(thread)?.failures ?? 0) + 1;
      const wait = Math.min(
        this.settings.pollMs * 2 ** Math.min(failures, 30),
        Math.max(this.settings.pollMs, MAX_THREAD_BACKOFF_MS),
      );
      this.#troubled.set(thread, { failures, until: Date.now() + wait });
      this.#say(`run ${q(thread)} stopped (${describe(error)}); this worker tries it again in ${wait} ms`);
    }
  }

  #pause(ms: number, session: Session): Promise<void> {
    if (session.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wakers.add(done);
    });
  }

  #wakeUp(): void {
    for (const wake of [...this.#wakers]) wake();
  }

  #say(line: string): void {
    try {
      this.settings.log(`${W}${this.settings.id}: ${line}`);
    } catch {
      // A logger that throws must not stop the worker.
    }
  }
}
