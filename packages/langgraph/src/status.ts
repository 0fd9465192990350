import type { Checkpointer, PendingWrite as FlowWrite } from '@flow/core';
import { ERROR, INTERRUPT, type PendingWrite } from '@langchain/langgraph-checkpoint';
import { sortWrites } from './pending-writes.js';
import { plainOf } from './stored-value.js';

/** How often a status update retries when another writer changed the record in between. */
const TRIES = 10;

function messageOf(value: unknown): string {
  const v = value as { message?: unknown; args?: unknown[] } | null;
  const text =
    typeof value === 'string'
      ? value
      : typeof v?.message === 'string'
        ? v.message
        : typeof v?.args?.[0] === 'string'
          ? (v.args[0] as string)
          : JSON.stringify(value);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** The node of a pulled task, from the task path LangGraph gives its writes (`~__pregel_pull, <node>`). */
function nodeOfPath(path: string): string | null {
  const pulled = /^~__pregel_pull, (.+)$/.exec(path);
  return pulled?.[1] ?? null;
}

/** An `interrupt()` a checkpoint waits on: LangGraph's interrupt id, the node that asked, the question. */
export interface WaitingInterrupt {
  id: string | null;
  node: string | null;
  payload: unknown;
}

/**
 * The interrupts still waiting among a checkpoint's stored writes, in LangGraph's order (not those of a task
 * that has finished since): each interrupt write holds a list
 * of LangGraph `Interrupt`s (`{ id, value }`); `next` names the node when the task path does not.
 */
export function waitingInterrupts(stored: readonly FlowWrite[], next: readonly string[]): WaitingInterrupt[] {
  const only = next.length === 1 ? (next[0] as string) : null;
  const sorted = sortWrites(stored);
  // A task that interrupted writes nothing else; one with a regular write was answered and finished (one of
  // several parallel questions answered by id), so its old interrupt write no longer waits.
  const finished = new Set(sorted.filter((w) => w.idx >= 0).map((w) => w.taskId));
  return sorted
    .filter((w) => w.stored.c === INTERRUPT && !finished.has(w.taskId))
    .flatMap((w) => {
      const plain = plainOf(w.stored);
      const node = nodeOfPath(w.stored.p) ?? only;
      return (Array.isArray(plain) ? plain : [plain]).map((i: unknown) => {
        const { id, value } = (i ?? {}) as { id?: unknown; value?: unknown };
        return typeof i === 'object' && i !== null && 'value' in i
          ? { id: typeof id === 'string' ? id : null, node, payload: value }
          : { id: null, node, payload: i };
      });
    });
}

/** Whether `writes` hold an interrupt or an error, the writes that change a step's status for @flow. */
export function changesStatus(writes: readonly PendingWrite[]): boolean {
  return writes.some(([channel]) => channel === INTERRUPT || channel === ERROR);
}

/**
 * After an interrupt or an error was written for a checkpoint (or a task's writes on an interrupted one), its @flow record says so, for `flow threads`
 * and the server: `interrupted` with the interrupts as the payload while LangGraph waits for an answer, the
 * error while a task has failed there. LangGraph reads neither: its own state is in the writes. The status is
 * derived from every stored write of the step, so concurrent updates agree; a lost race reads again.
 */
export async function statusAfterWrites(
  checkpointer: Checkpointer,
  thread: string,
  step: number,
): Promise<void> {
  for (let i = 0; i < TRIES; i++) {
    const [cp, stored] = await Promise.all([
      checkpointer.get(thread, step),
      checkpointer.getWrites(thread, step),
    ]);
    if (cp === undefined) return;
    const sorted = sortWrites(stored);
    const waiting = waitingInterrupts(stored, cp.next);
    // The question itself is the payload, as @flow's engine stores it; the ids are in the writes.
    const interrupts = waiting.map((w) => w.payload);
    const failed = sorted.filter((w) => w.stored.c === ERROR);
    const only = cp.next.length === 1 ? (cp.next[0] as string) : null;
    const node = waiting[0]?.node ?? only;
    const last = failed[failed.length - 1];
    const error =
      last === undefined
        ? null
        : { node: nodeOfPath(last.stored.p) ?? only, message: messageOf(plainOf(last.stored)) };
    const interrupted = interrupts.length > 0;
    const payload = interrupts.length === 1 ? interrupts[0] : interrupts.length === 0 ? null : interrupts;
    if (
      cp.interrupted === interrupted &&
      JSON.stringify(cp.interruptPayload) === JSON.stringify(payload) &&
      JSON.stringify(cp.error) === JSON.stringify(error)
    )
      return;
    try {
      await checkpointer.put(
        cp.with({ interrupted, interruptPayload: payload, interruptNode: interrupted ? node : null, error }),
        { ifRevision: cp.revision },
      );
      return;
    } catch (e) {
      if ((e as { code?: string }).code !== 'CHECKPOINT_CONFLICT') throw e;
    }
  }
}
