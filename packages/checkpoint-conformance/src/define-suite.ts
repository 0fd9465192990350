import type { Checkpointer } from '@flow/core';
import { describe } from 'vitest';
import type { CheckpointerHarness } from './harness.js';
import { type Kit, useKit } from './kit.js';

/** One capability's checks: a title (the `describe` name) and the tests, written against a `Kit`. */
export interface ConformanceSuite {
  readonly title: string;
  readonly define: (kit: Kit, harness: CheckpointerHarness) => void;
}

/** Registers `describe(suite.title)` with its own per-test lifecycle in the current block. */
export function registerSuite(suite: ConformanceSuite, harness: CheckpointerHarness): void {
  const options = harness.timeout === undefined ? {} : { timeout: harness.timeout };
  describe(suite.title, options, () => {
    suite.define(useKit(harness), harness);
  });
}

/** The function a plugin author calls to run one suite alone: `describeRaces('redis', harness)`. */
export type SuiteDescriber = <C extends Checkpointer>(name: string, harness: CheckpointerHarness<C>) => void;

/** Makes the public `describeX(name, harness)` of a suite: `describe(name) > describe(title) > tests`. */
export function describerFor(suite: ConformanceSuite): SuiteDescriber {
  return (name, harness) => {
    describe(name, () => registerSuite(suite, harness as CheckpointerHarness));
  };
}
