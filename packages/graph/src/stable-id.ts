import { createHash } from 'node:crypto';

/** A short, stable digest of its parts (unambiguous: the parts are JSON-encoded together). */
function digest(parts: readonly (string | number)[], length: number): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, length);
}

/**
 * The id of an `interrupt()` call: the same on every read and every re-run, derived from the thread, the
 * super-step (the step of the checkpoint its frontier was committed in), the node and the call's position.
 */
export function interruptId(thread: string, superStep: number, node: string, position: number): string {
  return `int-${digest(['interrupt', thread, superStep, node, position], 22)}`;
}

/**
 * `ctx.idempotencyKey(name)`: the same string on every re-run of the node at that super-step, different for
 * another thread, super-step, node or name. Hand it to APIs that deduplicate requests.
 */
export function idempotencyKey(thread: string, superStep: number, node: string, name: string): string {
  return `flow-${digest(['task', thread, superStep, node, name], 43)}`;
}
