import type { Checkpointer } from '@flow/core';
import type { ChildOpener } from './process/child-spec.js';

/**
 * What a backend hands the kit. The isolation contract: every call of `create()` returns a checkpointer on
 * fresh, empty storage (its own temp dir, schema, key prefix...). The kit closes every instance it created
 * or reopened at the end of each test, and then calls `cleanup` (when given) once per `create()`d instance so
 * storage is removed.
 *
 * @example
 * const dirs = new WeakMap<FileCheckpointer, string>();
 * describeCheckpointer('file', {
 *   create: async () => {
 *     const dir = await mkdtemp(join(tmpdir(), 'kit-'));
 *     const cp = new FileCheckpointer(dir);
 *     dirs.set(cp, dir);
 *     return cp;
 *   },
 *   reopen: async (cp) => {
 *     const again = new FileCheckpointer(dirs.get(cp)!);
 *     dirs.set(again, dirs.get(cp)!);
 *     return again;
 *   },
 *   cleanup: async (cp) => rm(dirs.get(cp)!, { recursive: true, force: true }),
 * });
 */
export interface CheckpointerHarness<C extends Checkpointer = Checkpointer> {
  /** A new checkpointer on fresh, empty storage. Do not call `setup()` here: the kit checks lazy setup. */
  create(): Promise<C>;
  /**
   * A second instance on the same storage as `cp` (another connection / handle). Enables the durability
   * and cross-instance race checks. May be called while `cp` is open and after `cp` was closed.
   */
  reopen?(cp: C): Promise<C>;
  /**
   * How a child process opens the same storage as `cp`: a module path, an export and JSON arguments (see
   * `ChildOpener`). Enables the "process races" suite, where the kit starts `capabilities.processes` node
   * processes on one storage and makes them race. Without it that suite registers one test whose name says
   * so. The module must be importable by a plain `node` (your built package, not TypeScript source).
   *
   * @example
   * openInChild: (cp) => ({ module: new URL('../dist/index.js', import.meta.url), export: 'DirCheckpointer', args: [cp.dir] }),
   */
  openInChild?(cp: C): ChildOpener | Promise<ChildOpener>;
  /**
   * A second instance on `cp`'s storage built with `options` passed to `BaseCheckpointerOptions`. The "linear
   * storage" suite writes old-format records through `{ stateStorage: 'whole' }` into the store it reads linear
   * ones from. Without it that check registers one test whose name says so.
   */
  reopenWith?(cp: C, options: { stateStorage: 'linear' | 'whole' }): Promise<C>;
  /**
   * How many chunks (shared parts of states, docs/writing-a-checkpointer.md) are stored for `thread`. Enables
   * the checks that prune and deleteThread remove the chunks no record references any more.
   */
  countChunks?(cp: C, thread: string): Promise<number>;
  /** Removes the storage behind `cp` after a test (after the kit closed it and every reopened sibling). */
  cleanup?(cp: C): Promise<void>;
  /**
   * Ways to damage one stored checkpoint behind the checkpointer's back, by name: each changes only the entry
   * at `at` in `cp`'s storage, the way that storage can really go wrong (a truncated file, a column edited by
   * hand, a value of the wrong type). Enables the "damaged storage" suite, which checks every one the same
   * way: reading that checkpoint rejects with `CorruptCheckpointError` naming the backend and the entry, and
   * the rest stays readable and removable. Without it that suite registers one test whose name says so.
   *
   * @example
   * damage: {
   *   'a step file that is not JSON': async (cp, at) => writeFile(stepFileOf(cp, at), 'not json'),
   * },
   */
  damage?: Readonly<Record<string, Damage<C>>>;
  /**
   * Ways the store itself refuses a write, by name: each makes `cp`'s storage refuse, from then on, every put
   * of a new checkpoint for `thread`, the way that storage can really refuse one (a trigger that fails the
   * statement or rolls the transaction back, a deferred constraint that fails the COMMIT). The kit calls it
   * after `setup()`. Enables the "refused puts" suite, which checks every one the same way: the refused put
   * rejects with `StorageError` and stores nothing, and the puts issued together with it (one group commit,
   * where the backend groups them) still land. Without it that suite registers one test whose name says so.
   *
   * @example
   * refuse: {
   *   'a trigger that fails the statement': async (cp, thread) => addTrigger(cp, thread, 'RAISE(ABORT)'),
   * },
   */
  refuse?: Readonly<Record<string, Refusal<C>>>;
  /**
   * Storage as earlier releases of the backend left it, by name: each call resolves with a checkpointer on
   * fresh storage laid out (and perhaps filled) by that release, which `cleanup` removes like a `create()`d
   * one. Enables the "other releases" suite: setup brings each up to date, whatever it held reads back the
   * same through every read and after a reopen, and it takes new writes. Without it that suite says so.
   *
   * @example
   * earlierReleases: { 'schema 1': async () => new MyCheckpointer(copyOf('fixtures/schema-v1.db')) },
   */
  earlierReleases?: Readonly<Record<string, () => Promise<C>>>;
  /**
   * A checkpointer on fresh storage that a release newer than this one wrote (set up by this release, then,
   * say, a schema version past the last one recorded), which `cleanup` removes like a `create()`d one.
   * Enables the check that such storage is refused with `StorageError` and nothing is written to it.
   */
  newerRelease?(): Promise<C>;
  /** What the backend can and cannot do; every missing capability is reported by name, never skipped silently. */
  capabilities?: CheckpointerCapabilities;
  /** Per-test timeout in milliseconds, for backends behind a network. @default vitest's testTimeout (5000) */
  timeout?: number;
}

/** Damages the stored checkpoint at (`thread`, `step`) of `cp`'s storage (see `CheckpointerHarness.damage`). */
export type Damage<C extends Checkpointer = Checkpointer> = {
  // Typed as a method, so a harness of a subclass still converts to `CheckpointerHarness` (as with `reopen`).
  damage(cp: C, at: { readonly thread: string; readonly step: number }): Promise<void>;
}['damage'];

/** Makes `cp`'s storage refuse every later put of a new checkpoint for `thread` (see `CheckpointerHarness.refuse`). */
export type Refusal<C extends Checkpointer = Checkpointer> = {
  refuse(cp: C, thread: string): Promise<void>;
}['refuse'];

/** Knobs a backend may turn; each has a default that every conforming backend meets. */
export interface CheckpointerCapabilities {
  /**
   * How many concurrent conditional puts the race tests fire at one (thread, step). @default 20
   */
  raceWidth?: number;
  /**
   * How many child processes the "process races" suite starts on one storage (with `openInChild`).
   * @default 8
   */
  processes?: number;
  /**
   * The backend stores per-step writes (`putWrites`, `getWrites`, `put(cp, { writes })`). Enables the
   * "writes" suite; without it that suite registers one test whose name says so.
   */
  writes?: boolean;
  /** The backend keeps thread leases (`acquireLease` and the rest). Enables the "leases" suite. */
  leases?: boolean;
  /**
   * Leases expire by the store's clock (a database server's), not by this process's: the "leases" suite then
   * checks that a process whose clock runs a day ahead still sees a live lease as live.
   */
  storeClock?: boolean;
  /**
   * The backend stores `error` and `meta` and filters `listThreads({ status: 'failed' })`. Enables the
   * "failed runs" suite.
   */
  failedRuns?: boolean;
}
