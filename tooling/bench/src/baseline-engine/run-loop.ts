import { Checkpoint, type Checkpointer, isFlowError, type Redactor } from '@flow/core';
import { applyUpdates, setOwn } from './apply-updates.js';
import { AlreadyResumed, NoCheckpointer, StepLimitExceeded } from './errors.js';
import type { GraphSpec } from './graph-spec.js';
import { nextFrontier } from './routing.js';
import { type PendingAnswer, runSuperStep } from './super-step.js';
import type { RunResult, State, StreamEvent } from './types.js';

/** A compiled graph's settings, as the run loop needs them. */
export interface Engine<S extends State> {
  readonly spec: GraphSpec<S>;
  readonly checkpointer: Checkpointer | undefined;
  readonly interruptBefore: ReadonlySet<string>;
  readonly maxSteps: number;
  readonly redactor: Redactor | undefined;
}

/** A committed checkpoint to go on from, and how. */
export interface RunStart<S extends State> {
  readonly thread: string;
  readonly step: number;
  readonly state: S;
  readonly next: readonly string[];
  /** True right after a claim of an interrupted checkpoint: its frontier was already stopped for. */
  readonly skipInterruptBefore: boolean;
  readonly answer: PendingAnswer | undefined;
}

const EMPTY: readonly string[] = Object.freeze([]);

/** Writes a checkpoint with `ifRevision: 0`; on a conflict, rejects with what `lost` builds instead. */
export async function commit<S extends State>(
  checkpointer: Checkpointer | undefined,
  init: { thread: string; step: number; state: S; next: readonly string[]; node?: string; payload?: unknown },
  lost: (thread: string, step: number) => Error,
): Promise<void> {
  if (checkpointer === undefined) return;
  const interrupted = init.node !== undefined;
  const cp = new Checkpoint({
    thread: init.thread,
    step: init.step,
    state: init.state,
    next: init.next,
    interrupted,
    interruptNode: init.node ?? null,
    interruptPayload: init.payload ?? null,
  });
  try {
    await checkpointer.put(cp, { ifRevision: 0 });
  } catch (error) {
    if (isFlowError(error, 'CHECKPOINT_CONFLICT')) throw lost(init.thread, init.step);
    throw error;
  }
}

function eventUpdates(ran: readonly string[], updates: readonly unknown[], redactor: Redactor | undefined) {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < ran.length; i++) {
    const update = updates[i];
    setOwn(out, ran[i] as string, redactor === undefined || update == null ? update : redactor(update));
  }
  return out;
}

/** A step this run meant to write was written first: another worker resumed the run meanwhile. */
const TAKEN_OVER = (thread: string, step: number) =>
  new AlreadyResumed(thread, step, 'another worker wrote this step first (the run was resumed elsewhere)');

/**
 * The super-step loop from a committed checkpoint: stop before `interruptBefore` nodes, run the frontier,
 * apply updates, route, commit `step + 1`, repeat until the frontier is empty, an interrupt, or `maxSteps`.
 * Yields one event per super-step and per interrupt stop when `events` is true; returns the run's result.
 */
export async function* runLoop<S extends State>(
  engine: Engine<S>,
  from: RunStart<S>,
  events: boolean,
): AsyncGenerator<StreamEvent, RunResult<S>, undefined> {
  const { spec, checkpointer, interruptBefore, maxSteps, redactor } = engine;
  const { thread } = from;
  let { step, state, next: frontier, answer } = from;
  let checkBefore = !from.skipInterruptBefore && interruptBefore.size > 0;
  let ran = 0;

  while (frontier.length > 0) {
    const stopAt = checkBefore ? frontier.find((n) => interruptBefore.has(n)) : undefined;
    if (stopAt !== undefined) {
      if (checkpointer === undefined) throw new NoCheckpointer('interruptBefore');
      step += 1;
      await commit(
        checkpointer,
        { thread, step, state, next: frontier, node: stopAt, payload: null },
        TAKEN_OVER,
      );
      if (events) yield { step, ran: EMPTY, updates: {}, next: frontier, interrupted: true };
      return { thread, status: 'interrupted', state, step, interrupt: { node: stopAt, payload: null } };
    }
    checkBefore = interruptBefore.size > 0;
    if (ran === maxSteps) throw new StepLimitExceeded(thread, step, maxSteps);

    const durable = checkpointer !== undefined;
    const outcome = await runSuperStep({ spec, thread, step, state, frontier, durable, answer });
    answer = undefined;
    if (outcome.kind === 'interrupt') {
      const { node, payload } = outcome;
      step += 1;
      await commit(checkpointer, { thread, step, state, next: frontier, node, payload }, TAKEN_OVER);
      if (events) yield { step, ran: frontier, updates: {}, next: frontier, interrupted: true };
      return { thread, status: 'interrupted', state, step, interrupt: { node, payload } };
    }

    const updated = applyUpdates(state, frontier, outcome.updates, spec.reducers);
    let next = nextFrontier(spec, frontier, updated, { thread, step });
    if (!Array.isArray(next)) next = await next;
    // An event hands `next` out (and it becomes the next `ran`): freeze it so a consumer cannot steer the run.
    if (events) Object.freeze(next);
    step += 1;
    if (checkpointer !== undefined)
      await commit(checkpointer, { thread, step, state: updated, next }, TAKEN_OVER);
    if (events) {
      const updates = eventUpdates(frontier, outcome.updates, redactor);
      yield { step, ran: frontier, updates, next, interrupted: false };
    }
    state = updated;
    frontier = next;
    ran += 1;
  }
  return { thread, status: 'done', state, step };
}
