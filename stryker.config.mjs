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
  // No `checkers: ['typescript']`: @stryker-mutator/typescript-checker drives the TypeScript compiler API, which
  // TypeScript 7 does not ship (its init fails on `ts.sys` being undefined; measured, docs/testing.md). Mutants
  // that would not type-check simply run and are killed or reported like the others.
  // The default scope: the SQL that decides what users see and export (dashboard filter, export layouts, pool
  // macros and trajectory stats) and MinHash dedupe. Left out, with the reason:
  // - src/curation/{store,split,near-duplicates,api}.ts: they drive the pool worker / a Web Worker through comlink,
  //   so only the browser tests (test/browser/curation-*.test.ts) reach them; their SQL pieces are in scope.
  // - src/ingest/**, src/notebook/{format,graph,sql-tokens}.ts, src/gateway/{assemble,request,to-step,routes}.ts:
  //   wanted, but ~1 800 more mutants at ~8 a minute on this shared 2-core machine (measured, docs/testing.md) is
  //   hours. Run a module on demand: `npm run mutation -- --mutate src/wire/anthropic.ts`.
  mutate: [
    'src/curation/filter.ts',
    'src/curation/minhash.ts',
    'src/curation/sql.ts',
    'src/export/layouts.ts',
    'src/pool/curation-sql.ts',
    'src/pool/schema.ts',
  ],
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
