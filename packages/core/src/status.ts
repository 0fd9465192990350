/**
 * The one rule for a run's status, from its latest checkpoint. Every backend, the CLI and the server call
 * these instead of deriving it themselves; SQL and Lua forms of the rule are checked against `statusOf` by
 * tests.
 */

/** Why a run failed: the node that threw (null when the step limit stopped it) and the error's message. */
export interface RunError {
  node: string | null;
  message: string;
}

/** The status of a run, as `listThreads({ status })` filters it. */
export type ThreadStatus = 'running' | 'interrupted' | 'done' | 'failed';

/** Every status, in the order help texts list them. */
export const THREAD_STATUSES: readonly ThreadStatus[] = ['running', 'interrupted', 'done', 'failed'];

/** The fields the status depends on. `error` may be the parsed object or its stored JSON text. */
export interface StatusFields {
  next: readonly string[];
  interrupted: boolean;
  error?: RunError | string | null;
}

/**
 * interrupted → `interrupted`; else an empty frontier → `done` (as `Checkpoint#done`); else a recorded error
 * → `failed`; else `running`. (A latest checkpoint that is interrupted counts as interrupted whatever its
 * `next`; a failed checkpoint keeps the frontier to re-run, so it is never done.)
 */
export function statusOf(cp: StatusFields): ThreadStatus {
  if (cp.interrupted) return 'interrupted';
  if (cp.next.length === 0) return 'done';
  return cp.error !== undefined && cp.error !== null && cp.error !== '' ? 'failed' : 'running';
}

/** A thread's latest checkpoint, without its state. */
export interface ThreadInfo {
  thread: string;
  latestStep: number;
  interrupted: boolean;
  done: boolean;
  /** The run failed (a node error after its retries, or the step limit); `resume` clears it. */
  failed: boolean;
  /** What failed, when `failed`. */
  error: RunError | null;
  ts: string;
}

/** A frontier that is not empty: what a `ThreadInfo` that is not done tells `statusOf` about its `next`. */
const NOT_DONE: readonly string[] = ['…'];

/**
 * The status a `ThreadInfo` stands for, by `statusOf` (a `ThreadInfo` keeps only whether its frontier is
 * empty, as `done`): the status `listThreads({ status })` lists it under.
 */
export function threadStatusOf(info: Pick<ThreadInfo, 'interrupted' | 'done' | 'failed'>): ThreadStatus {
  return statusOf({
    next: info.done ? [] : NOT_DONE,
    interrupted: info.interrupted,
    error: info.failed ? 'failed' : null,
  });
}

/** Parses a stored `error` field: JSON text of a `RunError`, or null. */
export function parseRunError(text: string | null | undefined): RunError | null {
  if (text === null || text === undefined || text === '') return null;
  const parsed = JSON.parse(text) as { node?: unknown; message?: unknown };
  return {
    node: typeof parsed.node === 'string' ? parsed.node : null,
    message: typeof parsed.message === 'string' ? parsed.message : String(parsed.message),
  };
}

/** The stored form of a `RunError`. */
export function stringifyRunError(error: RunError | null): string | null {
  return error === null ? null : JSON.stringify({ node: error.node, message: error.message });
}

/** Builds a `ThreadInfo` from the fields of a thread's latest checkpoint (record or summary row). */
export function threadInfoOf(latest: {
  thread: string;
  step: number;
  next: readonly string[];
  interrupted: boolean;
  error?: RunError | string | null;
  ts: string;
}): ThreadInfo {
  const error = typeof latest.error === 'string' ? parseRunError(latest.error) : (latest.error ?? null);
  const status = statusOf({ next: latest.next, interrupted: latest.interrupted, error });
  return {
    thread: latest.thread,
    latestStep: latest.step,
    interrupted: latest.interrupted,
    done: status === 'done',
    failed: status === 'failed',
    error: status === 'failed' ? error : null,
    ts: latest.ts,
  };
}
