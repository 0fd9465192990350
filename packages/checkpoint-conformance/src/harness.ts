import type { Checkpointer } from '@flow/core';

/**
 * What a backend hands the kit. The isolation contract: every call of `create()` returns a checkpointer on
 * fresh, empty storage (its own temp dir, schema, key prefix...). The kit closes every instance it created
 * and then calls `cleanup` (when given) so storage is removed.
 */
export interface CheckpointerHarness<C extends Checkpointer = Checkpointer> {
  /** A new checkpointer on fresh, empty storage. */
  create(): Promise<C>;
  /** A second instance on the same storage as `cp` (another connection / handle). Enables durability checks. */
  reopen?(cp: C): Promise<C>;
  /** Removes the storage behind `cp` after a test (after the kit closed it). */
  cleanup?(cp: C): Promise<void>;
  /** What the backend can and cannot do; every missing capability is reported by name, never skipped silently. */
  capabilities?: CheckpointerCapabilities;
}

export interface CheckpointerCapabilities {
  /**
   * How many concurrent conditional puts the race tests fire at one (thread, step). @default 20
   */
  raceWidth?: number;
}
