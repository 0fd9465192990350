export { type ConformanceSuite, registerSuite, type SuiteDescriber } from './define-suite.js';
export { ALL_SUITES, describeCheckpointer } from './describe-checkpointer.js';
export { expectFlowError } from './expect-error.js';
export type { CheckpointerCapabilities, CheckpointerHarness, Damage, Refusal } from './harness.js';
export { DEFAULT_PROCESSES, DEFAULT_RACE_WIDTH, type Kit } from './kit.js';
export { type OpenStorage, withOpenStorage } from './open-storage.js';
export { ChildPool, type RunInChildrenOptions, runInChildren } from './process/child-pool.js';
export type { ChildOpener, ChildTask } from './process/child-spec.js';
export { storedRecord } from './stored-record.js';
export { closeSuite, describeClose } from './suites/close.js';
export { damagedStorageSuite, describeDamagedStorage } from './suites/damaged-storage.js';
export { describeDurability, durabilitySuite } from './suites/durability.js';
export { describeEncryptedStorage, type SerializerHarness } from './suites/encrypted-storage.js';
export { describeErrors, errorsSuite } from './suites/errors.js';
export { describeFailedRuns, failedRunsSuite } from './suites/failed-runs.js';
export { describeLeases, leasesSuite } from './suites/leases.js';
export { describeLinearStorage, linearStates, linearStorageSuite } from './suites/linear-storage.js';
export { describeListThreads, listThreadsSuite, ORDER_IDS } from './suites/list-threads.js';
export { describeListing, listingSuite } from './suites/listing.js';
export { describeOtherReleases, otherReleasesSuite } from './suites/other-releases.js';
export { describeProcessRaces, processRacesSuite } from './suites/process-races.js';
export { describePutGet, putGetSuite } from './suites/put-get.js';
export { describeRaces, racesSuite } from './suites/races.js';
export { describeRefusedPuts, refusedPutsSuite } from './suites/refused-puts.js';
export { describeRetention, retentionSuite } from './suites/retention.js';
export { describeRevisions, revisionsSuite } from './suites/revisions.js';
export { describeSerialization, serializationSuite } from './suites/serialization.js';
export { describeSetup, setupSuite } from './suites/setup.js';
export {
  callsWithThreadId,
  describeThreadIds,
  HOSTILE_IDS,
  INVALID_IDS,
  threadIdsSuite,
} from './suites/thread-ids.js';
export { describeWrites, writesSuite } from './suites/writes.js';
