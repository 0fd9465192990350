import type { Checkpoint, RunError } from '@flow/core';

/**
 * How a worker takes a thread: the engine's resume, with the recovery count of docs/workers.md. Internal to
 * `@flow/graph` (the worker calls it through this symbol); users call `resume`.
 */
export const TAKE_FOR_WORKER: unique symbol = Symbol('flow.takeForWorker');

/** What the worker asks of a take. */
export interface WorkerTake {
  /** Takes allowed in a row without a committed super-step; the next one marks the run failed. */
  readonly maxRecoveries: number;
  /** True once the worker is stopping: the run stops before its next super-step (after its first). */
  readonly stopping: () => boolean;
}

/**
 * What a take came to: the run went on (`ran`: it finished, stopped for an interrupt, or the worker stopped
 * it between super-steps), was not running any more, was marked failed as a poison run, or was left alone
 * because the worker is stopping.
 */
export type TakeOutcome = 'ran' | 'not-running' | 'poisoned' | 'stopping';

/**
 * How many times workers took the run since its last committed super-step. Each take's claim checkpoint
 * records its count in `meta.recoveries`; a super-step's checkpoint carries none, so the count starts again
 * at 0 whenever the run makes progress. It lives in the store with the claim, so it survives every process.
 */
export function recoveriesOf(latest: Checkpoint): number {
  const n = latest.meta.recoveries;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0;
}

/** The error recorded on a poison run: the frontier it never got past, and how often it was taken. */
export function poisonError(frontier: readonly string[], recoveries: number): RunError {
  return {
    node: frontier.length === 1 ? (frontier[0] as string) : null,
    message:
      `taken up by workers ${recoveries} times without committing a step (maxRecoveries): ` +
      `node${frontier.length === 1 ? '' : 's'} ${frontier.join(', ')} may be killing the process; ` +
      'resume(thread) runs it again',
  };
}
