import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { startVitest } from 'vitest/node';

type Outcome = { passed: string[]; failed: string[] };

const fixtures = fileURLToPath(new URL('./process-fixtures/', import.meta.url));

/**
 * Runs the "process races" suite in a nested vitest against the one-JSON-file reference backend, as is and
 * with its lock dropped, and returns the names of the tests that passed and failed for each.
 */
async function runFixtures(): Promise<Map<string, Outcome>> {
  const exitCode = process.exitCode;
  const vitest = await startVitest('test', [], {
    root: fixtures,
    include: ['*.kit.ts'],
    config: false,
    watch: false,
    reporters: [{}],
    // One file at a time: each test already starts eight processes.
    maxWorkers: 1,
  });
  try {
    const outcomes = new Map<string, Outcome>();
    for (const module of vitest.state.getTestModules()) {
      const outcome: Outcome = { passed: [], failed: [] };
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') outcome.passed.push(test.name);
        if (state === 'failed') outcome.failed.push(test.name);
      }
      outcomes.set(module.relativeModuleId.replace(/\.kit\.ts$/, ''), outcome);
    }
    return outcomes;
  } finally {
    await vitest.close();
    // The nested run marks the process failed when the mutant fails, which is what we want from it.
    process.exitCode = exitCode;
  }
}

describe('the process races catch a backend whose check-then-write is not atomic across processes', () => {
  let outcomes: Map<string, Outcome>;

  beforeAll(async () => {
    outcomes = await runFixtures();
  }, 120_000);

  it('the correct one-file backend passes every process race', () => {
    expect(outcomes.get('correct')).toEqual({ passed: expect.any(Array), failed: [] });
    expect(outcomes.get('correct')!.passed).toHaveLength(4);
  });

  it('the same backend without its lock fails every process race', () => {
    const { passed, failed } = outcomes.get('no-lock')!;
    expect(passed).toEqual([]);
    expect(failed).toHaveLength(4);
  });
});
