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
  // macros and trajectory stats), MinHash dedupe, and (added 2026-12-03, measured per module: docs/testing.md)
  // format detection, finalize (ids, prompt groups, history linking), credential redaction and the gateway's
  // secret scrubbing. Left out, with the reason:
  // - src/curation/{store,split,near-duplicates,api}.ts: they drive the pool worker / a Web Worker through comlink,
  //   so only the browser tests (test/browser/curation-*.test.ts) reach them; their SQL pieces are in scope.
  // - (src/notebook/sql-tokens.ts is in scope since session 6: 80.7 %, survivors not worked yet; docs/testing.md)
  // - the rest of src/ingest/** (reader, normalizers), src/notebook/{format,graph}.ts,
  //   src/gateway/core/{assemble,request,to-step,routes}.ts: wanted, not measured (each module is hundreds of
  //   mutants at a few a minute on the shared 2-core machine). Run one on demand:
  //   `npm run mutation -- --mutate src/wire/sse.ts --concurrency 1`.
  // Added 2026-12-03 evening (measured: docs/testing.md): src/wire/{tools,openai-responses}.ts and
  // src/gateway/core/capture.ts (measured on lines 166-269 only; its test is test/unit/gateway-capture.test.ts),
  // src/ingest/normalizers/{openai-chat,sharegpt}.ts.
  // Session 6 (docs/testing.md, "Session 6: ingest reader and normalizers"): src/ingest/json-values.ts and
  // src/ingest/normalizers/anthropic.ts (tests: test/unit/mutation-ingest-{reader,anthropic}.test.ts). Tests
  // written, no Stryker run finished (6-35 mutants a minute on the loaded machine): src/ingest/reader.ts (same
  // test file, ~575 mutants) and src/ingest/normalizers/{langfuse,otel}.ts (test/unit/mutation-ingest-<name>.test.ts).
  // Added 2026-12-03 session 6 (measured: docs/testing.md, "Session 6: wire and notebook"): src/wire/{sse,anthropic,openai-chat}.ts.
  mutate: [
    'src/curation/filter.ts',
    'src/curation/minhash.ts',
    'src/curation/sql.ts',
    'src/export/layouts.ts',
    'src/gateway/core/capture.ts',
    'src/gateway/core/scrub.ts',
    'src/ingest/detect.ts',
    'src/ingest/finalize.ts',
    'src/ingest/json-values.ts',
    'src/ingest/normalizers/anthropic.ts',
    'src/ingest/normalizers/openai-chat.ts',
    'src/ingest/normalizers/sharegpt.ts',
    'src/ingest/redact.ts',
    'src/notebook/sql-tokens.ts',
    'src/pool/curation-sql.ts',
    'src/pool/schema.ts',
    'src/wire/anthropic.ts',
    'src/wire/openai-chat.ts',
    'src/wire/openai-responses.ts',
    'src/wire/sse.ts',
    'src/wire/tools.ts',
  ],
  // Stryker rewrites tsconfig `extends`/`references` in the sandbox with the TypeScript compiler API, which
  // TypeScript 7 no longer has (no `ts.parseConfigFileTextToJson`). Our tsconfig has neither, so point the
  // option at a file that does not exist and the rewrite is skipped; tsx still reads tsconfig.json.
  tsconfigFile: 'tsconfig.stryker-none.json',
  ignorePatterns: ['dist', 'reports', 'test-results', 'bench/data', '.tmp', 'docs/screenshots', '.stryker-tmp*'],
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
