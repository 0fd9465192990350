import { describe, expect, it } from 'vitest';
import {
  type RunError,
  threadInfoFromSummary,
  threadInfoOf,
  threadSummaryOf,
  UnreadableThreadSummary,
} from '../src/index.js';

const TS = ['2026-12-01T16:45:19.131Z', '+275760-09-13T00:00:00.000Z', '-004713-11-24T00:00:00.000Z'];
const ERRORS: (RunError | null)[] = [
  null,
  { node: 'fetch', message: 'it broke' },
  { node: null, message: 'spaces, "quotes", a NUL \u0000 and\nlines' },
];

describe('thread summaries', () => {
  it('decode to the ThreadInfo threadInfoOf builds from the same latest checkpoint, for every status', () => {
    for (const next of [[], ['a', 'b']])
      for (const interrupted of [false, true])
        for (const error of ERRORS)
          for (const ts of TS)
            for (const step of [0, 7, 2 ** 31 - 1]) {
              const latest = { thread: 'x y', step, next, interrupted, error, ts };
              const summary = threadSummaryOf(latest);
              expect(summary).not.toContain('\u0000');
              expect(threadInfoFromSummary('x y', summary), summary).toEqual(threadInfoOf(latest));
              // The stored error text (a record's `error` field) gives the same summary as the object.
              const text = error === null ? null : JSON.stringify(error);
              expect(threadSummaryOf({ ...latest, error: text })).toBe(summary);
            }
  });

  it('refuses a malformed summary instead of inventing a thread', () => {
    for (const bad of [
      '',
      '3',
      '3 running',
      '3 running ',
      'x running 2026-12-01T16:45:19.131Z',
      '-1 running 2026-12-01T16:45:19.131Z',
      ' running 2026-12-01T16:45:19.131Z',
      '3 sleeping 2026-12-01T16:45:19.131Z',
      '3 failed 2026-12-01T16:45:19.131Z',
      '3 failed 2026-12-01T16:45:19.131Z {oops',
    ]) {
      expect(() => threadInfoFromSummary('t', bad), bad).toThrow(UnreadableThreadSummary);
    }
  });
});
