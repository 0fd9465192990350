import { describe, expect, it } from 'vitest';
import { type RunError, statusOf, THREAD_STATUSES, threadInfoOf, threadStatusOf } from '../src/index.js';

/** Every combination of the fields the status depends on. */
const COMBINATIONS = [[], ['a']].flatMap((next) =>
  [false, true].flatMap((interrupted) =>
    [null, { node: 'a', message: 'it broke' } as RunError].map((error) => ({ next, interrupted, error })),
  ),
);

describe('threadStatusOf', () => {
  it('names the status statusOf gives the latest checkpoint a ThreadInfo was built from', () => {
    const seen = new Set<string>();
    for (const fields of COMBINATIONS) {
      const info = threadInfoOf({ thread: 't', step: 3, ts: new Date(0).toISOString(), ...fields });
      expect(threadStatusOf(info), JSON.stringify(fields)).toBe(statusOf(fields));
      seen.add(threadStatusOf(info));
    }
    expect([...seen].sort()).toEqual([...THREAD_STATUSES].sort());
  });
});
