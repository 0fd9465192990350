import { randomUUID } from 'node:crypto';
import {
  assertStep,
  assertThreadId,
  type Checkpoint,
  type Checkpointer,
  InvalidArgumentError,
  isFlowError,
} from '@flow/core';
import { isObjectLike } from './apply-updates.js';
import { GRAPH, ThreadBusy, ThreadNotFound } from './errors.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { superStepOf } from './pending.js';
import type { ForkOptions } from './types.js';

const q = JSON.stringify;
const PAGE = 100;

/** The checkpoints of `thread` with steps `0…step`, oldest first. */
async function stepsUpTo(checkpointer: Checkpointer, thread: string, step: number): Promise<Checkpoint[]> {
  const out: Checkpoint[] = [];
  let beforeStep = step + 1;
  for (;;) {
    const page = await checkpointer.list(thread, { beforeStep, limit: PAGE });
    out.push(...page);
    if (page.length < PAGE) break;
    beforeStep = (page[page.length - 1] as Checkpoint).step;
  }
  return out.reverse();
}

/**
 * Whether the super-step that read `cp` finished in the source: the source's next step is a new super-step's
 * checkpoint, not a continuation of this one (an interrupt, a failure, a claim). Its writes are then spent: a
 * fork that carried them would replay that super-step's updates and task values instead of running it, on a
 * patched state too.
 */
async function finishedAfter(checkpointer: Checkpointer, cp: Checkpoint): Promise<boolean> {
  const after = await checkpointer.get(cp.thread, cp.step + 1);
  return after !== undefined && superStepOf(after) !== superStepOf(cp);
}

/**
 * Copies checkpoints `0…step` of `thread` to `to`, oldest first, each with `ifRevision: 0` (so a thread that
 * appears at `to` meanwhile stops the copy with `ThreadBusy`) and with its step's per-step writes in the same
 * put, so a fork of a super-step that was cut short (an interrupt, a failure, a crash) keeps the nodes that had
 * completed and the values of their durable tasks. A fork of a step whose super-step finished in the source
 * carries none of that step's writes: `resume(to)` runs that super-step again (on the patched state, with new
 * task values). Resolves with the copy of `step`.
 */
export async function forkThread(
  checkpointer: Checkpointer,
  thread: string,
  options: ForkOptions,
  leaseFor: (thread: string) => LeaseKeeper,
): Promise<Checkpoint> {
  assertThreadId(thread);
  if (!isObjectLike(options as unknown))
    throw new InvalidArgumentError(`${GRAPH}fork options must be an object { step, to? }`);
  assertStep(options.step);
  const to = options.to ?? randomUUID();
  assertThreadId(to, 'to');
  const source = await checkpointer.get(thread, options.step);
  if (source === undefined) {
    if ((await checkpointer.get(thread)) === undefined) throw new ThreadNotFound(thread);
    throw new InvalidArgumentError(
      `${GRAPH}thread ${q(thread)} has no step ${options.step} (pruned, or not written yet)`,
    );
  }
  // The copy holds the lease on `to` from before its first write, as a run does: a worker sharing the store
  // must not take a half-copied thread (its latest step is a running one) and run it from the middle.
  const lease = leaseFor(to);
  try {
    if (!(await lease.acquire()))
      throw new ThreadBusy(to, 'is being run by another call (its lease is live)');
    lease.keep();
    if ((await checkpointer.get(to)) !== undefined)
      throw new ThreadBusy(to, 'exists already: fork to a new thread id');
    const spent = await finishedAfter(checkpointer, source);
    let copy: Checkpoint | undefined;
    for (const cp of await stepsUpTo(checkpointer, thread, options.step)) {
      try {
        const writes = cp.step === options.step && spent ? [] : await checkpointer.getWrites(thread, cp.step);
        copy = await checkpointer.put(cp.with({ thread: to }), { ifRevision: 0, writes });
      } catch (error) {
        if (isFlowError(error, 'CHECKPOINT_CONFLICT'))
          throw new ThreadBusy(to, 'was written by someone else during the fork');
        throw error;
      }
    }
    return copy as Checkpoint;
  } finally {
    await lease.release();
  }
}
