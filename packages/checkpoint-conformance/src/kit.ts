import type { Checkpointer } from '@flow/core';
import { afterEach, beforeEach } from 'vitest';
import type { CheckpointerHarness, Damage, Refusal } from './harness.js';
import type { ChildOpener } from './process/child-spec.js';

/** What every suite's tests use: fresh storage per call, closed and cleaned up after each test. */
export interface Kit<C extends Checkpointer = Checkpointer> {
  /** A checkpointer on fresh, empty storage (the harness's `create()`), tracked for teardown. */
  create(): Promise<C>;
  /** A second instance on `cp`'s storage, or `undefined` when the harness declares no `reopen`. */
  readonly reopen: ((cp: C) => Promise<C>) | undefined;
  /** A second instance on `cp`'s storage with a `stateStorage`, or `undefined` without `reopenWith`. */
  readonly reopenWith: ((cp: C, options: { stateStorage: 'linear' | 'whole' }) => Promise<C>) | undefined;
  /** How many chunks are stored for a thread, or `undefined` without `countChunks`. */
  readonly countChunks: ((cp: C, thread: string) => Promise<number>) | undefined;
  /** How many concurrent conditional puts a race fires. */
  readonly raceWidth: number;
  /** How a child process opens `cp`'s storage, or `undefined` when the harness declares no `openInChild`. */
  readonly openInChild: ((cp: C) => Promise<ChildOpener>) | undefined;
  /** How many child processes a process race starts. */
  readonly processes: number;
  /** The harness's ways to damage a stored checkpoint, by name (none when it declares no `damage`). */
  readonly damage: Readonly<Record<string, Damage<C>>>;
  /** The harness's ways to make the store refuse a thread's puts, by name (none when it declares no `refuse`). */
  readonly refuse: Readonly<Record<string, Refusal<C>>>;
  /** Storage of earlier releases, by name, tracked for teardown like `create()` (none when not declared). */
  readonly earlierReleases: Readonly<Record<string, () => Promise<C>>>;
  /** Storage a newer release wrote, tracked for teardown, or `undefined` when the harness declares none. */
  readonly newerRelease: (() => Promise<C>) | undefined;
  /** The optional capabilities the harness declares (`writes`, `leases`, `storeClock`, `failedRuns`). */
  readonly declares: {
    readonly writes: boolean;
    readonly leases: boolean;
    readonly storeClock: boolean;
    readonly failedRuns: boolean;
  };
}

/** The default width of the race tests (docs/protocol.md: "any number of concurrent conditional puts"). */
export const DEFAULT_RACE_WIDTH = 20;
/** The default number of child processes of a process race. */
export const DEFAULT_PROCESSES = 8;

/**
 * Registers the per-test lifecycle in the current `describe` block and returns the handle tests use.
 * Teardown closes reopened instances first (they may share a connection pool with the original), then the
 * created ones, then runs `cleanup` once per created instance; every step is attempted even when one fails.
 */
export function useKit<C extends Checkpointer>(harness: CheckpointerHarness<C>): Kit<C> {
  let created: C[] = [];
  let reopened: C[] = [];

  beforeEach(() => {
    created = [];
    reopened = [];
  });

  afterEach(async () => {
    const failures: unknown[] = [];
    for (const cp of [...[...reopened].reverse(), ...[...created].reverse()]) {
      try {
        await cp.close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (harness.cleanup) {
      for (const cp of created) {
        try {
          await harness.cleanup(cp);
        } catch (error) {
          failures.push(error);
        }
      }
    }
    if (failures.length > 0) throw failures[0];
  });

  const track = (make: () => Promise<C>) => async () => {
    const cp = await make();
    created.push(cp);
    return cp;
  };
  const reopen = harness.reopen?.bind(harness);
  const openInChild = harness.openInChild?.bind(harness);
  const reopenWith = harness.reopenWith?.bind(harness);
  return {
    create: track(() => harness.create()),
    reopen:
      reopen &&
      (async (cp: C) => {
        const again = await reopen(cp);
        reopened.push(again);
        return again;
      }),
    reopenWith:
      reopenWith &&
      (async (cp: C, options: { stateStorage: 'linear' | 'whole' }) => {
        const again = await reopenWith(cp, options);
        reopened.push(again);
        return again;
      }),
    countChunks: harness.countChunks?.bind(harness),
    raceWidth: harness.capabilities?.raceWidth ?? DEFAULT_RACE_WIDTH,
    openInChild: openInChild && (async (cp: C) => openInChild(cp)),
    processes: harness.capabilities?.processes ?? DEFAULT_PROCESSES,
    damage: harness.damage ?? {},
    refuse: harness.refuse ?? {},
    earlierReleases: Object.fromEntries(
      Object.entries(harness.earlierReleases ?? {}).map(([name, make]) => [name, track(make)]),
    ),
    newerRelease: harness.newerRelease && track(() => harness.newerRelease!()),
    declares: {
      writes: harness.capabilities?.writes === true,
      leases: harness.capabilities?.leases === true,
      storeClock: harness.capabilities?.storeClock === true,
      failedRuns: harness.capabilities?.failedRuns === true,
    },
  };
}
