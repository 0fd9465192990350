import { startVitest } from 'vitest/node';

export type Outcome = { passed: string[]; failed: string[] };

/**
 * Runs every `*.kit.ts` in `root` in a nested vitest and returns, per fixture (file name without `.kit.ts`),
 * the tests that passed and failed, named by `name` (`fullName` includes backend > suite).
 */
export async function runKitFixtures(
  root: string,
  options: { name: 'name' | 'fullName'; vitest: Record<string, unknown> },
): Promise<Map<string, Outcome>> {
  const exitCode = process.exitCode;
  const vitest = await startVitest('test', [], {
    root,
    include: ['*.kit.ts'],
    config: false,
    watch: false,
    reporters: [{}],
    ...options.vitest,
  });
  try {
    const outcomes = new Map<string, Outcome>();
    for (const module of vitest.state.getTestModules()) {
      const outcome: Outcome = { passed: [], failed: [] };
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') outcome.passed.push(test[options.name]);
        if (state === 'failed') outcome.failed.push(test[options.name]);
      }
      outcomes.set(module.relativeModuleId.replace(/\.kit\.ts$/, ''), outcome);
    }
    return outcomes;
  } finally {
    await vitest.close();
    // The nested run marks the process failed when a mutant fails, which is what we want from it.
    process.exitCode = exitCode;
  }
}
