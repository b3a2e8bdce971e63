// `npm run mutate` (docs/contributing/testing-internals.md): mutation testing of the core with Stryker and its vitest runner.
// `npm run mutate -- --mutate src/faults/rule.ts` mutates one file. Not part of .ci/run.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // Only the fast in-process tests that pin the core down (vitest.mutate.config.ts).
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: ['src/service/**/*.ts', 'src/faults/**/*.ts', 'src/core/**/*.ts', 'src/protocol/**/*.ts'],
  coverageAnalysis: 'perTest',
  // Results are reused for mutants whose code and covering tests did not change.
  incremental: true,
  incrementalFile: '.tmp/stryker/incremental.json',
  tempDirName: '.tmp/stryker/sandbox',
  // Not copied into the sandbox: build output, scratch, benchmarks.
  ignorePatterns: ['/.tmp', '/dist', '/bench', '*.tgz'],
  // Three workers on the 2-core machine the 5-minute bar per file is set on: each mutant's run waits on vitest's
  // start-up between bursts of CPU, so a third worker fills the gaps (delivery.ts from scratch, idle machine: 5 min 38 s
  // with two, 5 min 1 s with three; docs/contributing/testing-internals.md). On a machine busy with other work, `--concurrency 1`.
  concurrency: 3,
  // Static mutants (module-level constants) would need every test rerun for each: skipped, see docs/contributing/testing-internals.md.
  ignoreStatic: true,
  // A mutant that loops or waits forever is a kill: give up soon after the tests' own time (x1.5), not 10 s later.
  timeoutMS: 4_000,
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: '.tmp/stryker/mutation.json' },
  htmlReporter: { fileName: '.tmp/stryker/mutation.html' },
  thresholds: { high: 90, low: 85, break: null },
  cleanTempDir: 'always',
}
