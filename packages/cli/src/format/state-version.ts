import type { Checkpoint } from '@flow/core';

/**
 * The state version a checkpoint was written with, from `meta.stateVersion` (the engine records it); 1 when
 * it records none, as the engine counts it.
 */
export function stateVersionOf(cp: Checkpoint): number {
  const v = cp.meta?.stateVersion;
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : 1;
}
