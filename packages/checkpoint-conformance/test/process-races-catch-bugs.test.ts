import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Outcome, runKitFixtures } from './support/run-fixtures.js';

const fixtures = fileURLToPath(new URL('./process-fixtures/', import.meta.url));

function runFixtures() {
  return runKitFixtures(fixtures, {
    name: 'name',
    vitest: { maxWorkers: 1 } /* one file at a time: each test starts eight processes */,
  });
}

describe('the process races catch a backend whose check-then-write is not atomic across processes', () => {
  let outcomes: Map<string, Outcome>;

  beforeAll(async () => {
    outcomes = await runFixtures();
  }, 120_000);

  it('the correct one-file backend passes every process race', () => {
    expect(outcomes.get('correct')).toEqual({ passed: expect.any(Array), failed: [] });
    expect(outcomes.get('correct')!.passed).toHaveLength(5);
  });

  it('the same backend without its lock fails every process race', () => {
    const { passed, failed } = outcomes.get('no-lock')!;
    expect(passed).toEqual([]);
    expect(failed).toHaveLength(5);
  });
});
