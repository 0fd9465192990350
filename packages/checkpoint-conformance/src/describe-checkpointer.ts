import type { Checkpointer } from '@flow/core';
import { describe } from 'vitest';
import { type ConformanceSuite, registerSuite } from './define-suite.js';
import type { CheckpointerHarness } from './harness.js';
import { closeSuite } from './suites/close.js';
import { damagedStorageSuite } from './suites/damaged-storage.js';
import { durabilitySuite } from './suites/durability.js';
import { errorsSuite } from './suites/errors.js';
import { failedRunsSuite } from './suites/failed-runs.js';
import { leasesSuite } from './suites/leases.js';
import { linearStorageSuite } from './suites/linear-storage.js';
import { listThreadsSuite } from './suites/list-threads.js';
import { listingSuite } from './suites/listing.js';
import { otherReleasesSuite } from './suites/other-releases.js';
import { processRacesSuite } from './suites/process-races.js';
import { putGetSuite } from './suites/put-get.js';
import { racesSuite } from './suites/races.js';
import { refusedPutsSuite } from './suites/refused-puts.js';
import { retentionSuite } from './suites/retention.js';
import { revisionsSuite } from './suites/revisions.js';
import { serializationSuite } from './suites/serialization.js';
import { setupSuite } from './suites/setup.js';
import { threadIdsSuite } from './suites/thread-ids.js';
import { writesSuite } from './suites/writes.js';

/** Every suite of the kit, in the order `describeCheckpointer` registers them. */
export const ALL_SUITES: readonly ConformanceSuite[] = [
  putGetSuite,
  revisionsSuite,
  racesSuite,
  listingSuite,
  listThreadsSuite,
  retentionSuite,
  linearStorageSuite,
  threadIdsSuite,
  serializationSuite,
  errorsSuite,
  setupSuite,
  otherReleasesSuite,
  durabilitySuite,
  damagedStorageSuite,
  refusedPutsSuite,
  writesSuite,
  leasesSuite,
  failedRunsSuite,
  processRacesSuite,
  closeSuite,
];

/**
 * Registers the whole conformance kit for a backend as vitest suites: `describe(name) > describe(suite) > it`.
 * Call it at the top level of a test file. Every test gets fresh storage from `harness.create()`.
 *
 * @example
 * import { describeCheckpointer } from '@flow/checkpoint-conformance';
 * import { MemoryCheckpointer } from '@flow/checkpoint-memory';
 *
 * describeCheckpointer('memory', { create: async () => new MemoryCheckpointer() });
 */
export function describeCheckpointer<C extends Checkpointer>(
  name: string,
  harness: CheckpointerHarness<C>,
): void {
  describe(name, () => {
    for (const suite of ALL_SUITES) registerSuite(suite, harness as CheckpointerHarness);
  });
}
