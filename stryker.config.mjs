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
  // The scope (issue 20): the modules that decide what users get. Scores per file and folder, the runs, bugs found and
  // equivalent mutants: docs/testing.md ("Scope and score") and docs/mutation/*.md (the 2026-12-04 runs).
  // - ingest: the reader (containers, decoding, line splitting), JSON value splitting, format detection, every
  //   normalizer, finalize (ids, prompt groups, history linking) and credential redaction;
  // - wire: the OpenAI chat / Responses, Anthropic and SSE wire layer and tool definitions;
  // - gateway: capture (the call, the tee of a stream, the step it records) and secret scrubbing;
  // - notebook: statement classification (whether a cell may write to the pool), the notebook format and its
  //   dependency graph;
  // - curation, export, pool: the SQL that decides what the dashboard counts, what an export selects and how it is
  //   shaped, the pool's macros / views / trajectory stats, and MinHash dedupe; the part-file export and its folder
  //   names, the exporter's SQL (the page's WorkerExporter, main-thread side), the import commit's SQL, schema
  //   migrations and the read-only guard of query cells;
  // - gateway: routes, the journal (over the in-memory IndexedDB of test/unit/helpers/memory-journal.ts) and the
  //   passphrase vault;
  // - tokenizer: the chat-template rendering, the export rows (input_ids / assistant masks) and a count's choice of
  //   workers (count-plan.ts).
  // Only code that runs in the test's own process is counted: the tests that drive the app's workers in Node worker
  // threads (test/unit/helpers/page-workers.ts) reach the worker code where Stryker's coverage does not see it.
  // Left out, with the reason:
  // - src/curation/{store,split,near-duplicates,api}.ts, src/pool/{pool-core,client}.ts: they drive the pool worker / a
  //   Web Worker through comlink, so only tests in worker threads (test/unit/curation.test.ts, pool-worker.test.ts,
  //   import.test.ts) and the browser reach them; their SQL pieces are in scope;
  // - src/pool/import-tx.ts: in process only the pool port's conformance suite (≈ 100 s a run) and the CLI's import tests reach it;
  //   the SQL it runs (import-commit.ts) is in scope;
  // - src/ingest/{pipeline,importer,import-queue,shards,chat-steps,normalizer}.ts, src/record/step-arrow.ts: wanted, not
  //   measured yet.
  //   Run one on demand: `npm run mutation -- --mutate src/ingest/pipeline.ts --concurrency 1`.
  mutate: [
    // every format's normalizer, the registry (index.ts) and the helpers beside them (score, log-fields, wire-call)
    'src/ingest/normalizers/*.ts',
    'src/curation/filter.ts',
    'src/curation/minhash.ts',
    'src/export/layouts.ts',
    'src/gateway/core/capture.ts',
    'src/gateway/core/scrub.ts',
    'src/gateway/core/tee.ts',
    'src/gateway/core/to-step.ts',
    'src/ingest/detect.ts',
    'src/ingest/finalize.ts',
    'src/ingest/json-values.ts',
    'src/ingest/reader.ts',
    'src/notebook/sql-tokens.ts',
    'src/pool/curation-sql.ts',
    'src/pool/schema.ts',
    'src/record/prompt-uid.ts',
    'src/record/redact.ts',
    'src/wire/anthropic.ts',
    'src/wire/openai-chat.ts',
    'src/wire/openai-responses.ts',
    'src/wire/sse.ts',
    'src/wire/tools.ts',
    'src/export/exporter.ts',
    'src/export/part-folder.ts',
    'src/export/parts.ts',
    'src/gateway/core/journal.ts',
    'src/gateway/core/routes.ts',
    'src/gateway/core/vault.ts',
    'src/notebook/format.ts',
    'src/notebook/graph.ts',
    'src/pool/import-commit.ts',
    'src/pool/migrations.ts',
    'src/pool/read-only.ts',
    'src/tokenizer/count-plan.ts',
    'src/tokenizer/export-rows.ts',
    'src/tokenizer/render.ts',
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
