import { Checkpoint } from '@flow/core';
import { PostgresCheckpointer } from '../../src/index.js';
import { uniqueSchema, url } from './stores.js';

/** A growing log of ~50-byte entries: over 2 KB from the first step, so every step after it is linear. */
export const log = (n: number) => Array.from({ length: n }, (_, i) => ({ i, text: `entry ${i} `.repeat(5) }));

/** The states the upgrade tests store: step 0 whole, the steps after it linear. */
export const linearStates = () => [60, 61, 62, 90].map((n) => ({ log: log(n) }));

/**
 * Linear records exactly as core writes them, put as thread `t` into a schema of this release, for an upgrade
 * test to copy into the columns of an earlier version. Returns the schema (the caller drops it).
 */
export async function linearSource(states: object[]): Promise<string> {
  const source = uniqueSchema();
  const writer = new PostgresCheckpointer(url, { schema: source });
  try {
    for (const [step, state] of states.entries()) {
      await writer.put(new Checkpoint({ thread: 't', step, state, next: ['work'] }));
    }
  } finally {
    await writer.close();
  }
  return source;
}
