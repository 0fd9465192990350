import { InvalidArgumentError } from './errors.js';
import { compareThreadIds } from './thread-order.js';
import { assertThreadId } from './validation.js';

/**
 * A per-super-step result ("write"): stored per (thread, step the nodes read, node, key). The engine keeps a
 * completed node's update, a durable task's value and an interrupt's answer this way. The first value stored
 * for a (thread, step, node, key) wins; later ones for the same key are ignored.
 */
export interface PendingWrite {
  node: string;
  key: string;
  value: unknown;
}

/** A write as a backend stores it: the value already serialized. */
export interface WriteRecord {
  node: string;
  key: string;
  /** Serialized value. */
  value: string;
}

/** Checks a batch of writes: an array of `{ node, key, value }` with node and key shaped like thread ids. */
export function assertWrites(writes: unknown): asserts writes is readonly PendingWrite[] {
  if (!Array.isArray(writes))
    throw new InvalidArgumentError('writes must be an array of { node, key, value }');
  for (const w of writes) {
    if (typeof w !== 'object' || w === null)
      throw new InvalidArgumentError('each write must be an object { node, key, value }');
    assertThreadId((w as PendingWrite).node, 'write node');
    assertThreadId((w as PendingWrite).key, 'write key');
  }
}

/** Code-point order of (node, key): the order `getWrites` returns writes in (not UTF-16 order, as `<` is). */
export function compareWrites(a: { node: string; key: string }, b: { node: string; key: string }): number {
  return compareThreadIds(a.node, b.node) || compareThreadIds(a.key, b.key);
}
