import { hostname } from 'node:os';
import { assertInteger, flowPrefix, InvalidArgumentError } from '@flow/core';

/** Options of `createWorker(app, options)`. */
export interface WorkerOptions {
  /** Names the worker in its log lines. @default `<host>/<pid>/<random>` */
  id?: string;
  /** Runs in flight at once, from 1 to 1024. @default 4 */
  concurrency?: number;
  /** How long an idle worker waits before it looks for runs again, in ms (10 to 3,600,000). @default 1000 */
  pollMs?: number;
  /**
   * Takes of one run in a row without a committed super-step (1 to 1000; the first take of an enqueued run is
   * its first run, not counted); the next worker to find it marks it failed instead (a run that kills its
   * process every time). @default 5
   */
  maxRecoveries?: number;
  /** Where the worker's one-line messages go (store failures, failed runs). @default console.error */
  log?: (line: string) => void;
}

/** `WorkerOptions` checked, with the defaults filled in. */
export interface WorkerSettings {
  readonly id: string;
  readonly concurrency: number;
  readonly pollMs: number;
  readonly maxRecoveries: number;
  readonly log: (line: string) => void;
}

export const MAX_CONCURRENCY = 1024;
export const MIN_POLL_MS = 10;
export const MAX_POLL_MS = 3_600_000;
export const MAX_RECOVERIES = 1000;
const MAX_ID_LENGTH = 200;
/** `[flow:worker] `: what every worker message starts with. */
export const W = flowPrefix('worker');

/** Checks `options`, naming the option and its allowed range when one is out of it. */
export function workerSettings(options: unknown): WorkerSettings {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(`${W}createWorker options must be an object`);
  }
  const {
    id = `${hostname()}/${process.pid}/${Math.random().toString(36).slice(2, 8)}`,
    concurrency = 4,
    pollMs = 1000,
    maxRecoveries = 5,
    log = (line: string) => console.error(line),
  } = options as WorkerOptions;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH || !id.isWellFormed()) {
    throw new InvalidArgumentError(`${W}id must be a string of 1 to ${MAX_ID_LENGTH} characters`);
  }
  assertInteger(concurrency, `${W}concurrency`, 1, MAX_CONCURRENCY);
  assertInteger(pollMs, `${W}pollMs`, MIN_POLL_MS, MAX_POLL_MS);
  assertInteger(maxRecoveries, `${W}maxRecoveries`, 1, MAX_RECOVERIES);
  if (typeof log !== 'function') {
    throw new InvalidArgumentError(`${W}log must be a function taking one line of text`);
  }
  return { id, concurrency, pollMs, maxRecoveries, log };
}
