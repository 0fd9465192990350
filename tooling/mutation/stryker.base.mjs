import { fileURLToPath } from 'node:url';

/**
 * The options every target shares. Stryker runs from the repository root (so it can mutate files of several
 * packages) and runs only the conformance kit's harness of one backend: the score says what the kit catches,
 * not what a package's own unit tests catch.
 */
export function mutationConfig({ target, mutate, breakAt }) {
  return {
    mutate,
    testRunner: 'vitest',
    // Resolved from this package: the root has no Stryker of its own under pnpm's strict node_modules.
    plugins: [fileURLToPath(import.meta.resolve('@stryker-mutator/vitest-runner'))],
    vitest: { configFile: `tooling/mutation/vitest/${target}.config.mjs` },
    coverageAnalysis: 'perTest',
    // A shared 2-core machine: one test process, and the runner lowers its own priority.
    concurrency: 1,
    // A re-run tests only mutants whose code or covering tests changed since the committed baseline.
    incremental: true,
    incrementalFile: `tooling/mutation/incremental/${target}.json`,
    reporters: ['progress', 'clear-text', 'json'],
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    jsonReporter: { fileName: `tooling/mutation/reports/${target}.json` },
    thresholds: { high: 90, low: 80, break: breakAt },
    // Lease tests wait out short ttls; a loaded machine needs slack before a slow run counts as a hang.
    timeoutMS: 10_000,
    ignorePatterns: ['/docs', '/examples', '/tooling/*/results', '/tooling/mutation/reports', '/coverage'],
    tempDirName: '.stryker-tmp',
    cleanTempDir: true,
  };
}
