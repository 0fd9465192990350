import {
  Checkpoint,
  type Checkpointer,
  isFlowError,
  type PendingWrite,
  type Redactor,
  type RunError,
} from '@flow/core';
import { applyUpdates, setOwn } from './apply-updates.js';
import {
  AlreadyResumed,
  InvalidUpdateError,
  NoCheckpointer,
  NodeError,
  RunCancelled,
  StepLimitExceeded,
} from './errors.js';
import type { GraphSpec } from './graph-spec.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { Ledger, PENDING, UPDATE } from './ledger.js';
import { MisroutedError, nextFrontier } from './routing.js';
import { interruptId } from './stable-id.js';
import { type PutTarget, stampedMeta } from './state-version.js';
import { runSuperStep } from './super-step.js';
import type { PendingInterrupt, RunResult, State, StreamEvent } from './types.js';

/** A compiled graph's settings, as the run loop needs them. */
export interface Engine<S extends State> {
  readonly spec: GraphSpec<S>;
  readonly checkpointer: Checkpointer | undefined;
  /** Where the run's checkpoints are put (the store behind `checkpointer`), when there is one. */
  readonly target: PutTarget | undefined;
  readonly interruptBefore: ReadonlySet<string>;
  readonly maxSteps: number;
  readonly redactor: Redactor | undefined;
  readonly leaseMs: number;
}

/** A committed checkpoint to go on from, and how. */
export interface RunStart<S extends State> {
  readonly thread: string;
  readonly step: number;
  readonly state: S;
  readonly next: readonly string[];
  /** True right after a claim of an interrupted checkpoint: its frontier was already stopped for. */
  readonly skipInterruptBefore: boolean;
  /** The step the first super-step began at (earlier than `step` when a claim continues it). */
  readonly superStep: number;
  /** What the first super-step stored before (completed updates, task values, answers), carried by a claim. */
  readonly writes: readonly PendingWrite[];
  readonly signal: AbortSignal | undefined;
  readonly lease: LeaseKeeper | undefined;
  /** A worker's stop: true once it is stopping, so the run stops before its next super-step. */
  readonly stopping?: (() => boolean) | undefined;
}

const EMPTY: readonly string[] = Object.freeze([]);
const EMPTY_WRITES: readonly PendingWrite[] = Object.freeze([]);

/** What `commit` writes. */
interface CommitInit<S extends State> {
  thread: string;
  step: number;
  state: S;
  next: readonly string[];
  node?: string;
  payload?: unknown;
  writes?: readonly PendingWrite[];
  error?: RunError;
  meta?: Record<string, unknown>;
}

/** Writes a checkpoint with `ifRevision: 0`; on a conflict, rejects with what `lost` builds instead. */
export async function commit<S extends State>(
  target: PutTarget | undefined,
  init: CommitInit<S>,
  lost: (thread: string, step: number) => Error,
): Promise<void> {
  if (target === undefined) return;
  const interrupted = init.node !== undefined;
  const cp = new Checkpoint({
    thread: init.thread,
    step: init.step,
    state: init.state,
    next: init.next,
    interrupted,
    interruptNode: init.node ?? null,
    interruptPayload: init.payload ?? null,
    error: init.error ?? null,
    meta: stampedMeta(target, init.meta),
  });
  const writes = init.writes;
  try {
    await target.store.put(
      cp,
      writes === undefined || writes.length === 0 ? NEW_STEP : { ifRevision: 0, writes },
    );
  } catch (error) {
    throw lostOr(error, lost, init.thread, init.step);
  }
}

/** The put options of a step without writes: one frozen object, not one per super-step. */
const NEW_STEP = Object.freeze({ ifRevision: 0 });

/** What a failed put of a new step rejects with: `lost`'s error for a conflict, else the error itself. */
function lostOr(error: unknown, lost: (thread: string, step: number) => Error, thread: string, step: number) {
  return isFlowError(error, 'CHECKPOINT_CONFLICT') ? lost(thread, step) : error;
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
const TAKEN_OVER = (thread: string, step: number, cause?: unknown) =>
  new AlreadyResumed(
    thread,
    step,
    'another worker wrote this step first (the run was resumed elsewhere)',
    cause === undefined ? undefined : { cause },
  );

/** Why a run failed, as recorded on its failed checkpoint; `undefined` for errors that are not a failure. */
function runErrorOf(error: unknown): RunError | undefined {
  if (error instanceof NodeError) {
    const cause = error.cause;
    return { node: error.node, message: cause instanceof Error ? cause.message : String(cause) };
  }
  if (error instanceof InvalidUpdateError) return { node: error.nodes[0] ?? null, message: error.message };
  if (error instanceof MisroutedError) return { node: error.node, message: error.message };
  return undefined;
}

/**
 * The failure of a super-step whose updates the serializer refused (a function, a symbol, a cycle in what a
 * node returned): as certain to fail again as an invalid update, so it is recorded the same way, or a worker
 * would run the super-step's nodes again, side effects and all, until its recovery limit. The node is named
 * when the super-step ran one node.
 */
function unstorableUpdate(error: unknown, frontier: readonly string[]): RunError | undefined {
  if (!isFlowError(error, 'SERIALIZATION')) return undefined;
  return { node: frontier.length === 1 ? (frontier[0] as string) : null, message: error.message };
}

/**
 * The super-step loop from a committed checkpoint: stop before `interruptBefore` nodes, run the frontier,
 * apply updates, route, commit `step + 1`, repeat until the frontier is empty, an interrupt, or `maxSteps`.
 * A super-step cut short writes a continuation checkpoint (same state and frontier) carrying what it stored:
 * interrupted for an interrupt, with `error` for a failure. Yields one event per super-step and per interrupt
 * stop when `events` is true; returns the run's result.
 */
export async function* runLoop<S extends State>(
  engine: Engine<S>,
  from: RunStart<S>,
  events: boolean,
): AsyncGenerator<StreamEvent, RunResult<S>, undefined> {
  const { spec, checkpointer, target, interruptBefore, maxSteps, redactor } = engine;
  const { thread, signal, lease } = from;
  let { step, state, next: frontier, superStep } = from;
  let carried = from.writes;
  let checkBefore = !from.skipInterruptBefore && interruptBefore.size > 0;
  let ran = 0;

  /** Records the failure on a checkpoint of its own (state and frontier unchanged), then rejects with it. */
  const failed = async (
    error: unknown,
    writes: readonly PendingWrite[],
    started: boolean,
  ): Promise<never> => {
    const at = step + 1;
    // The step limit is reported at the step that records it, the same words in the record and the rejection.
    const thrown = error instanceof StepLimitExceeded ? new StepLimitExceeded(thread, at, maxSteps) : error;
    const runError =
      runErrorOf(thrown) ??
      unstorableUpdate(thrown, frontier) ??
      (thrown instanceof StepLimitExceeded ? { node: null, message: thrown.message } : undefined);
    if (runError === undefined || checkpointer === undefined) throw error;
    // A super-step that started had passed its interruptBefore check: its recovery must not stop again.
    const meta = started ? { superStep, pastInterruptBefore: true } : { superStep };
    try {
      await commit(
        target,
        { thread, step: at, state, next: frontier, writes, error: runError, meta },
        (t, s) => TAKEN_OVER(t, s, thrown),
      );
    } catch (recordError) {
      // Someone else moved the run on (a paused call taken over): this call lost the run, which is not failed.
      if (isFlowError(recordError, 'ALREADY_RESUMED')) throw recordError;
      // The store failed: the run's own error stands, unrecorded (a worker takes the run up again).
    }
    throw thrown;
  };

  while (frontier.length > 0) {
    if (signal?.aborted) throw new RunCancelled(thread, step, signal.reason);
    // A stopping worker lets each take commit one super-step first, so a stop never counts as a recovery
    // that made no progress (docs/workers.md, poison runs).
    if (ran > 0 && from.stopping?.()) throw new RunCancelled(thread, step, 'the worker is stopping');
    if (lease?.lost)
      throw new AlreadyResumed(thread, step, 'this call lost its lease on the thread to another worker');
    const stopAt = checkBefore ? frontier.find((n) => interruptBefore.has(n)) : undefined;
    if (stopAt !== undefined) {
      if (checkpointer === undefined) throw new NoCheckpointer('interruptBefore');
      const meta = { superStep, interruptBefore: true };
      await commit(
        target,
        { thread, step: step + 1, state, next: frontier, node: stopAt, payload: null, writes: carried, meta },
        TAKEN_OVER,
      );
      step += 1;
      if (events) yield { step, ran: EMPTY, updates: {}, next: frontier, interrupted: true };
      const interrupt = { id: null, node: stopAt, payload: null };
      return { thread, status: 'interrupted', state, step, interrupt, interrupts: [] };
    }
    checkBefore = interruptBefore.size > 0;
    if (ran === maxSteps) return await failed(new StepLimitExceeded(thread, step, maxSteps), carried, false);

    const durable = checkpointer !== undefined;
    const ledger = new Ledger(checkpointer, thread, step, carried);
    carried = EMPTY_WRITES;
    let updated: S;
    let next: readonly string[];
    let updates: readonly unknown[] | undefined;
    try {
      const outcome = await runSuperStep({
        spec,
        thread,
        step,
        state,
        frontier,
        durable,
        superStep,
        ledger,
        signal,
      });
      if (outcome.kind === 'interrupt') {
        ledger.close();
        const interrupts: PendingInterrupt[] = outcome.interrupts.map((i) => ({
          id: interruptId(thread, superStep, i.node, i.position),
          node: i.node,
          payload: i.payload,
        }));
        const first = interrupts[0] as PendingInterrupt;
        const writes = [
          ...(await ledger.carried()),
          ...outcome.interrupts.map((i) => ({
            node: i.node,
            key: PENDING,
            value: { position: i.position, payload: i.payload },
          })),
        ];
        const meta = { superStep, position: (outcome.interrupts[0] as { position: number }).position };
        await commit(
          target,
          {
            thread,
            step: step + 1,
            state,
            next: frontier,
            node: first.node,
            payload: first.payload,
            writes,
            meta,
          },
          TAKEN_OVER,
        );
        step += 1;
        if (events) yield { step, ran: frontier, updates: {}, next: frontier, interrupted: true };
        return { thread, status: 'interrupted', state, step, interrupt: { ...first }, interrupts };
      }
      updates = outcome.updates;
      updated = applyUpdates(state, frontier, updates, spec.reducers);
      const routed = nextFrontier(spec, frontier, updated, { thread, step });
      next = Array.isArray(routed) ? routed : await routed;
    } catch (error) {
      // The nodes completed but applying or routing failed: keep every update, so a recovery re-runs none.
      if (updates !== undefined && durable) {
        for (let i = 0; i < frontier.length; i++) ledger.remember(frontier[i] as string, UPDATE, updates[i]);
      }
      ledger.close();
      return await failed(error, await ledger.carried(), true);
    }
    ledger.close();
    // An event hands `next` out (and it becomes the next `ran`): freeze it so a consumer cannot steer the run.
    if (events) Object.freeze(next);
    step += 1;
    if (target !== undefined) {
      // The commit of every super-step, inline: no promise of its own beyond the put's.
      const cp = new Checkpoint({ thread, step, state: updated, next, meta: target.stamp });
      try {
        await target.store.put(cp, NEW_STEP);
      } catch (error) {
        if (!isFlowError(error, 'SERIALIZATION')) throw lostOr(error, TAKEN_OVER, thread, step);
        step -= 1; // the failure is recorded after the step that stands, with its state and frontier
        return await failed(error, EMPTY_WRITES, true);
      }
    }
    if (events) {
      yield {
        step,
        ran: frontier,
        updates: eventUpdates(frontier, updates, redactor),
        next,
        interrupted: false,
      };
    }
    state = updated;
    frontier = next;
    superStep = step;
    ran += 1;
  }
  return { thread, status: 'done', state, step };
}
