import { InvalidArgumentError } from './errors.js';
import type { RunError } from './status.js';

const EMPTY_META: Readonly<Record<string, unknown>> = Object.freeze({});

import { assertInteger, assertStep, assertThreadId, normalizeTs } from './validation.js';

/**
 * A node name every backend stores as it is: a string without U+0000 and without a lone surrogate (Postgres
 * `text` refuses the one and turns the other into U+FFFD).
 */
function isNodeName(name: unknown): name is string {
  return typeof name === 'string' && !name.includes('\u0000') && name.isWellFormed();
}

/** Every element a node name; a hole counts as `undefined`, so a sparse array is not a list of names. */
function allNodeNames(names: readonly unknown[]): boolean {
  for (let i = 0; i < names.length; i++) if (!isNodeName(names[i])) return false;
  return true;
}

/** True only while `storedAs` builds its copy: the constructor then takes the fields as they are. */
let copying = false;

/** The fields a `Checkpoint` is built from. */
export interface CheckpointInit<S = unknown> {
  /** The run's id: 1–512 characters, any Unicode except U+0000. */
  thread: string;
  /** Super-step number, 0 ≤ step ≤ 2^31 − 1. */
  step: number;
  /** The full state at this step. */
  state: S;
  /** The frontier: the nodes to run on resume. @default [] */
  next?: readonly string[];
  /** Suspended for a human. @default false */
  interrupted?: boolean;
  /** Which node interrupted. @default null */
  interruptNode?: string | null;
  /** What the human must resolve. @default null */
  interruptPayload?: unknown;
  /** ISO-8601 UTC time of the write; `put` stamps it when omitted or `''`. @default '' */
  ts?: string;
  /** Write count for this (thread, step), set by the backend; ignored by `put`. @default 0 */
  revision?: number;
  /** Set when the run failed at this checkpoint (a node error after retries, or the step limit). @default null */
  error?: RunError | null;
  /**
   * Small plain-JSON facts about the checkpoint that are not state (the engine's `stateVersion`, say). Stored
   * as JSON, not through the serializer, and visible to anyone who can read the store. @default {}
   */
  meta?: Readonly<Record<string, unknown>>;
}

/**
 * One persisted super-step of a run. Immutable: use `with()` for a changed copy.
 * The instance and its `next` array are frozen; `state` is the caller's value and is not deep-frozen
 * (backends store a serialized snapshot, so mutating it later never changes what is stored).
 *
 * @example
 * const cp = new Checkpoint({ thread: 'order-42', step: 0, state: { n: 0 }, next: ['work'] });
 * cp.done; // false
 */
export class Checkpoint<S = unknown> {
  readonly thread: string;
  readonly step: number;
  readonly state: S;
  readonly next: readonly string[];
  readonly interrupted: boolean;
  readonly interruptNode: string | null;
  readonly interruptPayload: unknown;
  readonly ts: string;
  readonly revision: number;
  readonly error: RunError | null;
  readonly meta: Readonly<Record<string, unknown>>;

  constructor(init: CheckpointInit<S>) {
    if (typeof init !== 'object' || init === null)
      throw new InvalidArgumentError('Checkpoint needs an object of fields');
    const thread = init.thread;
    const step = init.step;
    const next = init.next ?? [];
    const interrupted = init.interrupted ?? false;
    const interruptNode = init.interruptNode ?? null;
    const revision = init.revision ?? 0;
    let ts = init.ts ?? '';
    let error = init.error ?? null;
    const meta = init.meta ?? EMPTY_META;
    // `storedAs` copies a checkpoint that passed these checks, with a ts made by `toISOString()`.
    if (!copying) {
      assertThreadId(thread);
      assertStep(step);
      if (!Array.isArray(next) || !allNodeNames(next)) {
        throw new InvalidArgumentError(
          'next must be an array of node names (strings without U+0000 or a lone surrogate)',
        );
      }
      if (typeof interrupted !== 'boolean') throw new InvalidArgumentError('interrupted must be a boolean');
      if (interruptNode !== null && !isNodeName(interruptNode)) {
        throw new InvalidArgumentError(
          'interruptNode must be null or a string without U+0000 or a lone surrogate',
        );
      }
      assertInteger(revision, 'revision', 0, Number.MAX_SAFE_INTEGER);
      if (ts !== '') ts = normalizeTs(ts);
      if (error !== null) {
        if (
          typeof error !== 'object' ||
          typeof error.message !== 'string' ||
          (error.node !== null && typeof error.node !== 'string')
        ) {
          throw new InvalidArgumentError('error must be null or { node: string | null, message: string }');
        }
        error = Object.freeze({ node: error.node ?? null, message: error.message });
      }
      if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) {
        throw new InvalidArgumentError('meta must be a plain object');
      }
    }

    this.thread = thread;
    this.step = step;
    this.state = init.state;
    // A frozen array can never change, so it is kept as it is (a backend's reads hand one over) instead of copied.
    this.next = Object.isFrozen(next) ? next : Object.freeze([...next]);
    this.interrupted = interrupted;
    this.interruptNode = interruptNode;
    this.interruptPayload = init.interruptPayload === undefined ? null : init.interruptPayload;
    this.ts = ts;
    this.revision = revision;
    this.error = error;
    this.meta = meta;
    Object.freeze(this);
  }

  /** `true` exactly when `next` is empty and the checkpoint is not interrupted: the run finished. */
  get done(): boolean {
    return this.next.length === 0 && !this.interrupted;
  }

  /** A copy with some fields changed. */
  with<T = S>(changes: Partial<CheckpointInit<T>>): Checkpoint<T> {
    return new Checkpoint<T>({ ...(this.toInit() as unknown as CheckpointInit<T>), ...changes });
  }

  /** The plain fields, as the constructor takes them. */
  toInit(): CheckpointInit<S> {
    return {
      thread: this.thread,
      step: this.step,
      state: this.state,
      next: this.next,
      interrupted: this.interrupted,
      interruptNode: this.interruptNode,
      interruptPayload: this.interruptPayload,
      ts: this.ts,
      revision: this.revision,
      error: this.error,
      meta: this.meta,
    };
  }

  /** Plain JSON view (state as given; use a serializer for exact round trips). */
  toJSON(): CheckpointInit<S> & { done: boolean } {
    return { ...this.toInit(), done: this.done };
  }
}

/**
 * What `put` answers: `cp` as stored, stamped `ts` and `revision`. `cp` passed the constructor's checks and `ts`
 * is `cp.ts` or `toISOString()`'s, so the copy skips them (as `cp.with(...)` it cost 0.3-0.5 us a put, a
 * second round of the checks its caller's `new Checkpoint` made); `revision` comes from the backend and is
 * checked.
 */
export function storedAs<S>(cp: Checkpoint<S>, ts: string, revision: number): Checkpoint<S> {
  assertInteger(revision, 'revision', 0, Number.MAX_SAFE_INTEGER);
  copying = true;
  try {
    return new Checkpoint<S>({
      thread: cp.thread,
      step: cp.step,
      state: cp.state,
      next: cp.next,
      interrupted: cp.interrupted,
      interruptNode: cp.interruptNode,
      interruptPayload: cp.interruptPayload,
      ts,
      revision,
      error: cp.error,
      meta: cp.meta,
    });
  } finally {
    copying = false;
  }
}

export type { ThreadInfo } from './status.js';
