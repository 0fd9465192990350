import { randomBytes } from 'node:crypto';

/**
 * The env variable the vitest global setups set to one id per test run. Unique names embed it, so the
 * setup's teardown can sweep whatever a crashed or failed test of this run left behind.
 */
export const RUN_ID_ENV = 'FLOW_TEST_RUN_ID';

/** The current run's id: the one the global setup chose, else this process id. */
export function runId(): string {
  return process.env[RUN_ID_ENV] || String(process.pid);
}

/** A fresh run id: base-36 time plus randomness, letters and digits only. */
export function newRunId(): string {
  return Date.now().toString(36) + randomBytes(2).toString('hex');
}

function random(): string {
  return randomBytes(5).toString('hex');
}

/** The start every schema of this run shares: `flow_test_<run>_`. */
export function schemaRunPrefix(id = runId()): string {
  return `flow_test_${id}_`;
}

/** The start every key prefix of this run shares: `flow_test:<run>:`. */
export function keyRunPrefix(id = runId()): string {
  return `flow_test:${id}:`;
}

/**
 * A schema name no other test, file or run uses: `flow_test_<run>_<random>` (lower case, fits
 * `/^[A-Za-z_][A-Za-z0-9_]{0,62}$/`). Call it per test file or per `create()`.
 *
 * @example
 * const schema = uniqueSchema(); // 'flow_test_m5x2k1ab3f_9c2e41d07a'
 */
export function uniqueSchema(): string {
  return schemaRunPrefix() + random();
}

/**
 * A Redis key prefix no other test, file or run uses: `flow_test:<run>:<random>` (fits
 * `/^[A-Za-z0-9_:.-]{1,64}$/`). Within a run they all have the same length, so none is the start of another.
 *
 * @example
 * const prefix = uniquePrefix(); // 'flow_test:m5x2k1ab3f:9c2e41d07a'
 */
export function uniquePrefix(): string {
  return keyRunPrefix() + random();
}
