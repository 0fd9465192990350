import { isFlowError } from '@flow/core';
import { NodeError } from './errors.js';
import type { GraphSpec } from './graph-spec.js';
import {
  asyncContextEnabled,
  callInScope,
  enableAsyncContext,
  isAsyncContextNeeded,
  isInterruptSignal,
  type NodeScope,
  suspend,
} from './interrupt.js';
import type { NodeContext, State } from './types.js';

/** A resume's answer, for the node that suspended. */
export interface PendingAnswer {
  readonly node: string;
  readonly value: unknown;
}

/** What one super-step produced: every node's update (frontier order), or the first interrupt. */
export type StepOutcome =
  | { readonly kind: 'updates'; readonly updates: readonly unknown[] }
  | { readonly kind: 'interrupt'; readonly node: string; readonly payload: unknown };

/** Where and what a super-step runs. */
export interface SuperStep<S extends State> {
  readonly spec: GraphSpec<S>;
  readonly thread: string;
  /** The step of the checkpoint the nodes read. */
  readonly step: number;
  readonly state: S;
  readonly frontier: readonly string[];
  /** Whether the graph has a checkpointer (an interrupt needs one). */
  readonly durable: boolean;
  readonly answer: PendingAnswer | undefined;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function start<S extends State>(run: SuperStep<S>, name: string): unknown {
  const { answer } = run;
  const scope: NodeScope = {
    node: name,
    durable: run.durable,
    answer: answer !== undefined && answer.node === name ? { value: answer.value } : undefined,
  };
  const ctx: NodeContext = {
    thread: run.thread,
    step: run.step,
    interrupt: <A>(payload?: unknown) => suspend(scope, payload) as A,
  };
  return callInScope(scope, run.spec.nodes.get(name) as (s: S, c: NodeContext) => unknown, run.state, ctx);
}

/**
 * Runs every node of the frontier concurrently and waits for all of them (so none is still running when
 * the call returns). A node error wins over an interrupt; among several, the first in frontier order wins.
 * When the free `interrupt()` needed async context, it is turned on and the whole super-step runs again.
 */
export async function runSuperStep<S extends State>(run: SuperStep<S>): Promise<StepOutcome> {
  const { frontier } = run;
  for (;;) {
    // Re-run at most once: with async context already on, the signal cannot come from our interrupt().
    const canRetry = !asyncContextEnabled();
    const n = frontier.length;
    const updates: unknown[] = new Array(n);
    let errors: unknown[] | undefined;
    if (n === 1) {
      // The common case: no Promise.allSettled, no per-node result objects.
      try {
        let value = start(run, frontier[0] as string);
        if (isPromiseLike(value)) value = await value;
        updates[0] = value;
      } catch (error) {
        errors = [error];
      }
    } else {
      const settled = await Promise.allSettled(frontier.map(async (name) => start(run, name)));
      for (let i = 0; i < n; i++) {
        const r = settled[i] as PromiseSettledResult<unknown>;
        if (r.status === 'fulfilled') updates[i] = r.value;
        else {
          errors ??= new Array(n);
          errors[i] = r.reason;
        }
      }
    }
    if (errors === undefined) return { kind: 'updates', updates };

    if (canRetry && errors.some(isAsyncContextNeeded)) {
      enableAsyncContext();
      continue;
    }
    let interrupted: StepOutcome | undefined;
    for (let i = 0; i < n; i++) {
      if (!(i in errors)) continue;
      const error = errors[i];
      const node = frontier[i] as string;
      if (isInterruptSignal(error)) {
        interrupted ??= { kind: 'interrupt', node, payload: error.payload };
        continue;
      }
      // interrupt() in a graph without a checkpointer: the run rejects with NoCheckpointer itself.
      if (!run.durable && isFlowError(error, 'NO_CHECKPOINTER')) throw error;
      throw new NodeError({ node, step: run.step, thread: run.thread, cause: error });
    }
    return interrupted as StepOutcome;
  }
}
