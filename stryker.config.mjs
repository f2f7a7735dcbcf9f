// StrykerJS config for `npm run mutation` (see docs/testing.md). Not part of `npm test`.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  // The tap runner starts one `node` process per unit-test file (no `--test`: that would fork a child the
  // coverage hook never sees) with tsx for TypeScript and node:test's TAP reporter.
  testRunner: 'tap',
  tap: {
    testFiles: ['test/unit/*.test.ts'],
    nodeArgs: ['--require', '{{hookFile}}', '--import', 'tsx', '--test-reporter=tap', '{{testFile}}'],
    forceBail: false,
  },
  coverageAnalysis: 'perTest',
  mutate: ['src/curation/*.ts'],
  // Stryker rewrites tsconfig `extends`/`references` in the sandbox with the TypeScript compiler API, which
  // TypeScript 7 no longer has (no `ts.parseConfigFileTextToJson`). Our tsconfig has neither, so point the
  // option at a file that does not exist and the rewrite is skipped; tsx still reads tsconfig.json.
  tsconfigFile: 'tsconfig.stryker-none.json',
  ignorePatterns: ['dist', 'reports', 'test-results', 'bench/data', '.tmp', 'docs/screenshots'],
  concurrency: 2,
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false },
  timeoutMS: 10000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
