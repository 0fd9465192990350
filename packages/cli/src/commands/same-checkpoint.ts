import type { Checkpoint } from '@flow/core';

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
}

/**
 * Structural equality over what the serializer round-trips, with exact types: a `Map` is not an array,
 * `1n` is not `"1"`, `-0` is not `0`, `NaN` equals `NaN`. Object key order is ignored (Postgres JSONB
 * reorders keys); `Map` and `Set` order is not (every backend keeps it). A `Buffer` equals a `Uint8Array`
 * with the same bytes, since the serializer gives either back.
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && sameBytes(a, b);
  }
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  }
  if (a instanceof Map || b instanceof Map) {
    return a instanceof Map && b instanceof Map && sameList([...a].flat(), [...b].flat());
  }
  if (a instanceof Set || b instanceof Set) {
    return a instanceof Set && b instanceof Set && sameList([...a], [...b]);
  }
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && sameList(a, b);
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/**
 * Whether two checkpoints hold the same content: state and interrupt payload (with `deepEqual`), frontier,
 * interrupt fields and timestamp. The revision is ignored: it counts writes to one store, and a copy
 * starts it again at 1.
 */
export function sameCheckpoint(a: Checkpoint, b: Checkpoint): boolean {
  return (
    a.thread === b.thread &&
    a.step === b.step &&
    a.ts === b.ts &&
    a.interrupted === b.interrupted &&
    a.interruptNode === b.interruptNode &&
    sameList(a.next, b.next) &&
    deepEqual(a.state, b.state) &&
    deepEqual(a.interruptPayload, b.interruptPayload)
  );
}
