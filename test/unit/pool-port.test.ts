/**
 * One conformance suite for the pool port (src/pool/port.ts, decision 074), run against both engines in node: the
 * page's (PoolClient and the real pool worker on DuckDB-WASM's node build, test/unit/helpers/page-workers.ts) and the CLI's
 * (NativePool on @duckdb/node-api). Each check is a function taking an engine, as duckdb-wasm writes its suites;
 * each runs on both, and what the two answer is compared: same inputs, same rows. The commit paths of the one import
 * transaction (src/pool/import-tx.ts) — dedupe, id collisions, joined traces, repeats, reset, abort, a failed file,
 * recovery of an interrupted import, rejected lines — the read-only runs and the change feed, then every layout of
 * every importable fixture.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { NativePool } from '../../src/cli/native-pool';
import type { ImportReport } from '../../src/contract/reports';
import type { StepRecord } from '../../src/contract/step';
import { datasetSql, LAYOUTS, type LayoutOptions, resolveLayoutOptions } from '../../src/export/layouts';
import { ingestFile } from '../../src/ingest/pipeline';
import { stepsToIPC } from '../../src/record/step-arrow';
import type { PoolChange, PoolPort, Row } from '../../src/pool/port';
import { DATA_TABLES } from '../../src/pool/schema';
import { startPool } from './helpers/page-workers';
import { scratchDir } from '../scratch.mjs';

type Port = PoolPort & { close(): Promise<void> };

interface Engine {
  name: string;
  /** A new pool: in memory, or (`path`) in a file that a second open finds again. */
  open(path?: string): Promise<Port>;
  /** Whether a pool survives its engine in node (duckdb-wasm's node runtime keeps no file: its OPFS case is the browser's). */
  files: boolean;
}

const ENGINES: Engine[] = [
  {
    name: 'page (DuckDB-WASM)',
    files: false,
    async open() {
      const p = await startPool('port');
      return Object.assign(p, { close: async () => p.terminate() });
    },
  },
  {
    name: 'CLI (native DuckDB)',
    files: true,
    async open(path = ':memory:') {
      return NativePool.open(path);
    },
  },
];

/** Values as both engines' rows can be compared: BIGINT as a number, a timestamp as ISO text. */
const plain = (v: unknown): unknown =>
  typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.map(plain) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
const canonical = (v: unknown): unknown =>
  Array.isArray(v) ? v.map(canonical) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Row)[k])])) : v;
const rows = async (p: PoolPort, sql: string) => (await p.rows(sql)).map((r) => plain(r) as Row);
const count = async (p: PoolPort, where = 'true') => Number((await rows(p, `SELECT count(*) AS n FROM steps WHERE ${where}`))[0]?.n);

const fixture = (path: string, name = path.split('/').pop() as string) => new File([readFileSync(`test/fixtures/${path}`)], name);
const imp = (p: PoolPort, file: File) => ingestFile(file, p);
/** What an import report says, without what differs by run (times, ids). */
const said = (r: ImportReport) => ({ status: r.status, rows: r.rows, added: r.added, alreadyInPool: r.alreadyInPool ?? 0, collisions: r.collisions ?? [], rejected: r.rejected, message: r.message });

/** An OTLP JSON export holding LLM spans of one trace (the shape opentelemetry-js / pydantic-ai write). */
function otlp(trace: string, spans: number[]): string {
  const span = (n: number) => ({
    traceId: trace,
    spanId: `${n}`.padStart(16, '0'),
    name: 'chat gpt-4o-mini',
    kind: 3,
    startTimeUnixNano: `${1764666090000000000n + BigInt(n) * 1000000000n}`,
    endTimeUnixNano: `${1764666090500000000n + BigInt(n) * 1000000000n}`,
    attributes: [
      { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
      { key: 'gen_ai.request.model', value: { stringValue: 'gpt-4o-mini' } },
      { key: 'gen_ai.input.messages', value: { stringValue: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: `turn ${n}` }] }]) } },
      { key: 'gen_ai.output.messages', value: { stringValue: JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `answer ${n}` }], finish_reason: 'stop' }]) } },
    ],
  });
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'agent' } }] }, scopeSpans: [{ scope: { name: 'test' }, spans: spans.map(span) }] }] });
}

/** Step records of one trajectory, as an import batch carries them. */
function steps(traj: string, importId: number, answers: string[]): StepRecord[] {
  return answers.map((answer, i) => ({
    step_id: `${traj}:${i}`, trajectory_uid: traj, prompt_uid: `p-${traj}`, step_index: i, is_last: null, channel: 'train', policy_version: null,
    agent: null, data_source: null, model: 'm', provider: null, messages: [{ role: 'user', content: `q${i}` }], tools: null,
    response: { role: 'assistant', content: answer }, response_text: answer, finish_reason: 'stop', prompt_tokens: null, completion_tokens: null,
    prompt_ids: null, response_ids: null, rollout_log_probs: null, reward: null, started_at: null, ended_at: null, latency_ms: null, ttft_ms: null,
    status: 'ok', error: null, metadata: null, raw: null, source: `${traj}.jsonl`, source_format: 'step-record', source_line: i + 1, source_id: 'abcdef0123456789', import_id: importId,
  }));
}

const COMMIT = { format: 'step-record', confidence: 1, records: 2, rowsMade: 2, errors: [] };

// --- the checks, each a function of a port; each returns what the two engines' answers are compared by ---

/** Two runs reusing a session id: the second kept apart and named; re-imports add nothing and say so. */
async function collisionsApart(p: PoolPort) {
  const text = readFileSync('test/fixtures/formats/atif-trajectory.json', 'utf8');
  const doc = JSON.parse(text);
  const sid = String(doc.session_id);
  doc.steps[doc.steps.length - 1].message = 'Done: hello.txt was written (second run).';
  const run1 = new File([text], 'run-1.json');
  const run2 = new File([JSON.stringify(doc, null, 2)], 'run-2.json');
  const a = await imp(p, run1);
  assert.equal(a.status, 'done', a.message ?? '');
  const b = await imp(p, run2);
  assert.equal(b.status, 'done', b.message ?? '');
  assert.equal(b.added, b.rows);
  assert.equal(b.collisions?.length, 1);
  const c = b.collisions?.[0];
  assert.equal(c?.trajectory, sid);
  assert.equal(c?.how, 'apart');
  assert.match(c?.keptAs ?? '', new RegExp(`^${sid}@[0-9a-f]{12}$`));
  const trajs = await rows(p, 'SELECT trajectory_uid AS t, any_value(source_trajectory_id) AS own, count(*) AS n, count(*) FILTER (WHERE is_last) AS last FROM steps GROUP BY ALL ORDER BY t');
  assert.deepEqual(trajs, [
    { t: sid, own: sid, n: a.rows, last: 1 },
    { t: c?.keptAs, own: sid, n: b.rows, last: 1 },
  ]);
  const again = [];
  for (const f of [run2, run1]) {
    const r = await imp(p, f);
    assert.equal(r.status, 'unchanged', f.name);
    assert.equal(r.added, 0);
    assert.equal(r.alreadyInPool, r.rows);
    assert.match(r.message ?? '', /already imported — 0 new steps/i);
    again.push(said(r));
  }
  assert.equal(await count(p), a.rows + b.rows);
  return { a: said(a), b: said(b), again, trajs, stats: await rows(p, 'SELECT trajectory_uid, step_count FROM trajectory_stats ORDER BY ALL'), imports: await rows(p, 'SELECT import_id, file, status, rows_added, message FROM imports ORDER BY import_id') };
}

/** Spans of one trace split across two export files join one trajectory; the span in both is kept once. */
async function tracesJoined(p: PoolPort) {
  const trace = '0af7651916cd43dd8448eb211c80319c';
  const a = await imp(p, new File([otlp(trace, [1, 2, 3])], 'export-1.json'));
  assert.equal(a.added, 3);
  const b = await imp(p, new File([otlp(trace, [3, 4, 5])], 'export-2.json'));
  assert.equal(b.added, 2);
  assert.equal(b.alreadyInPool, 1);
  assert.deepEqual(b.collisions, [{ trajectory: trace, keptAs: trace, steps: 2, how: 'joined' }]);
  const got = await rows(p, `SELECT step_index AS i, is_last, response_text AS r FROM steps WHERE trajectory_uid = '${trace}' ORDER BY step_index`);
  assert.deepEqual(got.map((r) => r.r), ['answer 1', 'answer 2', 'answer 3', 'answer 4', 'answer 5']);
  assert.deepEqual(got.map((r) => r.is_last), [false, false, false, false, true]);
  const [t] = await rows(p, `SELECT step_count FROM trajectories WHERE trajectory_uid = '${trace}'`);
  assert.equal(t?.step_count, 5);
  return { a: said(a), b: said(b), got };
}

/** A step id repeated within a file with other content is a rejected line, recorded with its file. */
async function repeatsRejected(p: PoolPort) {
  const r = await imp(p, fixture('bad/duplicate-step-ids.jsonl'));
  assert.equal(r.added, 3);
  assert.deepEqual(r.rejected.map((x) => x.line), [3]);
  assert.match(r.rejected[0]?.reason ?? '', /dup-a:1 was already made by line 2/);
  const errs = await rows(p, `SELECT import_id, file, line, reason FROM import_errors ORDER BY ALL`);
  assert.deepEqual(errs.map((e) => [e.file, e.line]), [['duplicate-step-ids.jsonl', 3]]);
  return { r: said(r), errs };
}

/** A file whose every record fails: failed, with the reason, its rejected lines recorded, nothing added. */
async function failedFile(p: PoolPort) {
  const r = await imp(p, new File(['{"messages": [}\n{"a": 1,,}\nnot json at all\n'], 'all-bad.jsonl'));
  assert.equal(r.status, 'failed');
  assert.match(r.message ?? '', /Nothing was imported/);
  assert.deepEqual(r.rejected.map((x) => x.line), [1, 2, 3]);
  const imports = await rows(p, 'SELECT file, status, rejected FROM imports');
  assert.deepEqual(imports, [{ file: 'all-bad.jsonl', status: 'failed', rejected: 3 }]);
  const errs = await rows(p, 'SELECT file, line FROM import_errors ORDER BY line');
  assert.deepEqual(errs, [1, 2, 3].map((line) => ({ file: 'all-bad.jsonl', line })));
  assert.equal(await count(p), 0);
  return { r: said(r), errs };
}

/** reset drops what was appended and keeps the import open; abort keeps nothing and records why and the lines. */
async function resetAndAbort(p: PoolPort) {
  const id = await p.beginImport({ file: 'reset.jsonl', sourceId: '', bytes: 1 });
  await p.setImportSource(id, 'abcdef0123456789');
  await p.appendBatch(id, stepsToIPC(steps('r-old', id, ['x', 'y'])));
  await p.resetImport(id);
  await p.appendBatch(id, stepsToIPC(steps('r-new', id, ['a', 'b'])));
  const done = await p.commitImport(id, COMMIT);
  assert.equal(done.rowsAdded, 2);
  assert.deepEqual(await rows(p, 'SELECT trajectory_uid AS t, count(*) AS n FROM steps GROUP BY ALL'), [{ t: 'r-new', n: 2 }]);
  for (const stage of ['dedupe', 'isLast', 'stats', 'meta', 'commit']) assert.equal(typeof done.stages?.[stage], 'number', stage);

  const id2 = await p.beginImport({ file: 'abort.jsonl', sourceId: 'abcdef0123456789', bytes: 1 });
  await p.appendBatch(id2, stepsToIPC(steps('r-gone', id2, ['c'])));
  await p.abortImport(id2, 'cancelled by the user', [{ line: 7, reason: 'not a record' }]);
  assert.equal(await count(p, `trajectory_uid = 'r-gone'`), 0);
  await assert.rejects(p.appendBatch(id2, stepsToIPC(steps('r-gone', id2, ['c']))), /not open/);
  const imports = await rows(p, 'SELECT import_id AS id, file, source_id, status, rows_added, rejected, message FROM imports ORDER BY import_id');
  assert.deepEqual(imports.map((r) => [r.file, r.status, r.rejected]), [['reset.jsonl', 'done', 0], ['abort.jsonl', 'failed', 1]]);
  assert.equal(imports[0]?.source_id, 'abcdef0123456789');
  assert.equal(imports[1]?.message, 'cancelled by the user');
  const errs = await rows(p, 'SELECT import_id AS id, file, line, reason FROM import_errors');
  assert.deepEqual(errs, [{ id: id2, file: 'abort.jsonl', line: 7, reason: 'not a record' }]);
  // ids that collide with stored content under another file: kept apart under the file hash
  const id3 = await p.beginImport({ file: 'edited.jsonl', sourceId: 'fedcba9876543210', bytes: 1 });
  await p.appendBatch(id3, stepsToIPC(steps('r-new', id3, ['a', 'edited']).map((s) => ({ ...s, source_id: 'fedcba9876543210' }))));
  const apart = await p.commitImport(id3, COMMIT);
  assert.deepEqual(apart.collisions, [{ trajectory: 'r-new', keptAs: 'r-new@fedcba987654', steps: 2, how: 'apart' }]);
  // the stages timed besides these are the engine's own (native: staged batches inserted; page: OPFS flushed)
  return { done: { ...done, stages: undefined, room: undefined }, imports, errs, apart: { ...apart, stages: undefined, room: undefined } };
}

/** The change feed names the tables each write changed, whoever wrote (an import's commit, SQL, a failed import). */
async function changeFeed(p: PoolPort) {
  const seen: string[][] = [];
  const off = p.onChange((e: PoolChange) => seen.push(e.tables));
  const settle = () => new Promise((r) => setTimeout(r, 20)); // the page's broker is told by a message
  const mark = async (what: string) => {
    await settle();
    const tables = [...new Set(seen.flat())].sort();
    seen.length = 0;
    return [what, tables];
  };
  const out = [];
  await imp(p, fixture('core/chat.jsonl'));
  out.push(await mark('import'));
  await p.exec(`INSERT INTO curation (step_id, quality) SELECT step_id, 'good' FROM steps LIMIT 1`);
  out.push(await mark('label'));
  await p.rows('SELECT count(*) FROM steps');
  out.push(await mark('read'));
  await imp(p, new File(['nope\n'], 'bad.jsonl'));
  out.push(await mark('failed import'));
  off();
  for (const t of ['imports', 'steps', 'trajectories', 'trajectory_stats']) assert.ok(out[0]?.[1]?.includes(t), `an import's commit changes ${t}`);
  assert.deepEqual(out[1], ['label', ['curation', 'trajectories']]);
  assert.deepEqual(out[2], ['read', []]);
  return out;
}

/** Read-only runs: one statement, no write, `run: false` only checks; execOne runs exactly one statement. */
async function readOnlyRuns(p: PoolPort) {
  await imp(p, fixture('core/chat.jsonl'));
  const t = await p.queryReadOnly('SELECT count(*)::INTEGER AS n FROM steps');
  const n = Number(t?.getChild('n')?.get(0));
  assert.ok(n > 0);
  assert.equal(await p.queryReadOnly('SELECT 1', false), null);
  await assert.rejects(p.queryReadOnly('DELETE FROM steps'), /read-only|read only/i);
  await assert.rejects(p.queryReadOnly('SELECT 1; SELECT 2'));
  await assert.rejects(p.queryReadOnly('SELECT * FROM no_such_table', false), /no_such_table/);
  assert.equal(await count(p), n);
  await p.execOne('CREATE OR REPLACE VIEW port_v AS SELECT step_id FROM steps');
  await assert.rejects(p.execOne('CREATE VIEW port_a AS SELECT 1; CREATE VIEW port_b AS SELECT 2'));
  const [v] = await rows(p, 'SELECT count(*) AS n FROM port_v');
  assert.equal(v?.n, n);
  return { n };
}

/** An import that was running when its engine went away is rolled back and marked interrupted at the next open. */
async function interruptedRecovered(e: Engine, dir: string) {
  const path = join(dir, `${e.name.replace(/\W+/g, '-')}.duckdb`);
  const p = await e.open(path);
  const id = await p.beginImport({ file: 'cut.jsonl', sourceId: 'abcdef0123456789', bytes: 1 });
  await p.appendBatch(id, stepsToIPC(steps('cut', id, ['a', 'b'])));
  await p.close(); // no commit: the engine goes as a killed command's or a closed page's does
  const q = await e.open(path);
  try {
    const imports = await rows(q, 'SELECT file, status, message FROM imports');
    assert.deepEqual(imports.map((r) => [r.file, r.status]), [['cut.jsonl', 'interrupted']]);
    assert.match(String(imports[0]?.message), /interrupted .* rolled back; nothing of it was kept/);
    assert.equal(await count(q), 0);
    return imports;
  } finally {
    await q.close();
  }
}

const CHECKS: [string, (p: PoolPort) => Promise<unknown>][] = [
  ['a trajectory id reused with other content is kept apart; re-imports add nothing', collisionsApart],
  ['spans of one trace across two files join one trajectory', tracesJoined],
  ['a step id repeated within a file is a rejected line', repeatsRejected],
  ['a file of nothing but bad records fails, its lines recorded', failedFile],
  ['reset, abort and a collision through the port\'s import calls', resetAndAbort],
  ['the change feed names the tables a write changed', changeFeed],
  ['read-only runs and single statements', readOnlyRuns],
];

/**
 * Each engine's one pool for every check, emptied before each but the first (a DuckDB-WASM pool's start costs its
 * worker thread ≈ 1.5–2 CPU-s: the checks started 7 per engine). Both engines run the same checks in the same order,
 * so their pools have the same history (the same import ids).
 */
const pools = new Map<string, Promise<Port>>();
const poolOf = (e: Engine): Promise<Port> => {
  let p = pools.get(e.name);
  if (!p) pools.set(e.name, (p = e.open()));
  return p;
};
after(async () => {
  for (const p of pools.values()) await (await p.catch(() => null))?.close();
});
/** Every row the checks and imports write, gone, as "Clear pool" empties it: the pool as a new one answers (its schema, its sequences go on). */
const emptyPool = (p: PoolPort) => p.exec(DATA_TABLES.map((t) => `DELETE FROM ${t}`).join(';\n'));

describe('pool port: both engines, the same answers', () => {
  const answers = new Map<string, Map<string, unknown>>();
  const dir = scratchDir('aw-port-');

  // the two engines run their checks at once (each engine's one after another, on its one pool, emptied between
  // them): they are threads of their own, so the file's wall time is the slower engine's rather than the sum; each
  // `it` waits for its own
  const runs = new Map<string, Promise<unknown>>();
  const ran = (e: Engine, name: string) => runs.get(`${e.name} › ${name}`) as Promise<unknown>;
  const startAll = () => {
    if (runs.size) return;
    for (const e of ENGINES) {
      let prev: Promise<unknown> = Promise.resolve();
      for (const [i, [name, check]] of CHECKS.entries()) {
        const run = prev.catch(() => {}).then(async () => {
          const p = await poolOf(e);
          if (i > 0) await emptyPool(p);
          return plain(await check(p));
        });
        run.catch(() => {}); // reported by its own `it`
        runs.set(`${e.name} › ${name}`, (prev = run));
      }
    }
  };

  for (const e of ENGINES) {
    describe(e.name, () => {
      const mine = new Map<string, unknown>();
      answers.set(e.name, mine);
      for (const [name] of CHECKS) {
        it(name, async () => {
          startAll();
          mine.set(name, await ran(e, name));
        });
      }
      if (e.files) it('an interrupted import is rolled back and marked at the next open', async () => void (await interruptedRecovered(e, dir)));
    });
  }

  it('both engines answered every check alike', () => {
    const [a, b] = ENGINES.map((e) => answers.get(e.name) as Map<string, unknown>);
    for (const [name] of CHECKS) assert.deepEqual(b?.get(name), a?.get(name), name);
  });
});

/**
 * Every layout of every fixture, against the golden file, and both engines' rows of every layout over every fixture at
 * once (this was test/unit/export-differential.test.ts, which imported every fixture a third time).
 * test/fixtures/export-golden.json holds each case's columns (DuckDB types), row count and a SHA-256 of the rows as
 * canonical JSON, as they were when an output was last meant to change: for each fixture imported alone into a new pool
 * (the CLI's engine), for the empty pool and for the pool that holds every fixture (both engines). A storage or layout
 * change that alters a layout's columns or values fails here, naming the fixture and the case.
 * Why each fixture alone runs on one engine only: a layout's query costs DuckDB-WASM ≈ 10–50 ms of planning whatever
 * its rows (the fixtures' 1,500 queries were ≈ 30 s of the file's 37), and the SQL is the same on both engines. What
 * an engine makes of the data is compared on the pool that holds every fixture's rows, with the same cases; the hosts'
 * own files of that pool (the page's Workbench and exporter, the CLI's commands): test/unit/page-cli-agree.test.ts.
 * Regenerate only when an output is meant to change:
 *   UPDATE_EXPORT_GOLDEN=1 node --import tsx --test test/unit/pool-port.test.ts
 * To see what changed, write every case's rows (one file per fixture and case) before and after, and diff the folders:
 *   EXPORT_ROWS_DIR=/tmp/rows-after node --import tsx --test test/unit/pool-port.test.ts
 */
const GOLDEN = 'test/fixtures/export-golden.json';
const UPDATE_GOLDEN = !!process.env.UPDATE_EXPORT_GOLDEN;
const ROWS_DIR = process.env.EXPORT_ROWS_DIR;
/** The layouts and option sets compared: each layout's default, every row with its problem and untrainable steps, two options. */
const CASES: [string, LayoutOptions][] = [
  ...(Object.keys(LAYOUTS) as (keyof typeof LAYOUTS)[]).map((layout): [string, LayoutOptions] => [layout, { layout }]),
  ...(Object.keys(LAYOUTS) as (keyof typeof LAYOUTS)[]).map((layout): [string, LayoutOptions] => [`${layout}+all`, { layout, validOnly: false, trainableOnly: false }]),
  ['sft per step', { layout: 'sft', sftPer: 'step' }],
  ['steps redacted', { layout: 'steps', redact: true }],
];
const FIXTURES = ['core/chat.jsonl', ...readdirSync('test/fixtures/formats').filter((f) => !/\.(md|txt)$/.test(f)).map((f) => `formats/${f}`)].sort();
/** The golden file's two entries beside the fixtures': the cases on a new pool, and on the pool holding every fixture. */
const EMPTY = '(a new pool)';
const ALL = '(every fixture in one pool)';
type Case = { columns: string[]; rows: string[] } | { error: string };
type Golden = { columns: string[]; rows: number; sha256: string } | { error: string };
type Cases = Record<string, Case>;
const golden = (c: Case): Golden => ('error' in c ? c : { columns: c.columns, rows: c.rows.length, sha256: createHash('sha256').update(c.rows.join('\n')).digest('hex') });
/** What an import report says, in one line: the import case of a fixture's entry. */
const reported = (r: ImportReport) => [r.status, r.format ?? '', `added ${r.added}`];

/**
 * Every case's columns and rows, as canonical JSON, on the pool as it is now (`label` names it in EXPORT_ROWS_DIR).
 * DESCRIBE's answers are reused by the SQL and the tables' columns (binding reads no rows, so one SQL on one schema
 * has one answer; verl_prompts' SQL differs by the pool's metadata and is described anew).
 */
async function casesNow(p: PoolPort, engine: string, label: string, described: Map<string, string[]>, schema: string): Promise<Cases> {
  const cases: Cases = {};
  for (const [name, o] of CASES) {
    try {
      const opts = await resolveLayoutOptions((sql) => p.rows(sql), o);
      const sql = datasetSql(opts);
      const key = `${schema}\n${sql}`;
      const columns = described.get(key) ?? (await rows(p, `DESCRIBE ${sql}`)).map((c) => `${c.column_name}:${c.column_type}`);
      described.set(key, columns);
      cases[name] = { columns, rows: (await rows(p, sql)).map((x) => JSON.stringify(canonical(x))) };
      if (ROWS_DIR) {
        mkdirSync(join(ROWS_DIR, engine.replace(/\W+/g, '_')), { recursive: true });
        writeFileSync(join(ROWS_DIR, engine.replace(/\W+/g, '_'), `${label.replaceAll(/[^a-z0-9.+_-]/gi, '_')}.${name.replaceAll(/[^a-z0-9+_-]/gi, '_')}.jsonl`), `${(cases[name] as { rows: string[] }).rows.join('\n')}\n`);
      }
    } catch (err) {
      cases[name] = { error: (err as Error).message.split('\n')[0] ?? '' };
    }
  }
  return cases;
}

/** How many rows the layouts could read (steps and curation; they read nothing else), and the pool's columns. */
async function poolState(p: PoolPort): Promise<{ n: number; schema: string }> {
  const [state] = await rows(p, `SELECT (SELECT count(*) FROM steps) + (SELECT count(*) FROM curation) AS n,
    (SELECT string_agg(table_name || '.' || column_name || ':' || data_type, ',' ORDER BY table_name, column_index) FROM duckdb_columns() WHERE NOT internal) AS schema`);
  return { n: Number(state?.n), schema: String(state?.schema) };
}

/**
 * Each fixture imported alone into the pool (emptied before each), and every case laid out: its import report, then
 * its cases. A fixture whose import left the pool empty has the empty pool's answers, asked once.
 */
async function eachFixtureAlone(p: PoolPort, engine: string): Promise<Record<string, Cases>> {
  const out: Record<string, Cases> = {};
  const described = new Map<string, string[]>();
  let empty: Cases | undefined;
  for (const f of FIXTURES) {
    await emptyPool(p);
    const r = await imp(p, fixture(f));
    const state = await poolState(p);
    const cases: Cases = { import: { columns: reported(r), rows: [] } };
    if (state.n === 0 && empty && !ROWS_DIR) {
      out[f] = { ...cases, ...empty };
      continue;
    }
    const laid = await casesNow(p, engine, f.replaceAll('/', '_'), described, state.schema);
    out[f] = { ...cases, ...laid };
    if (state.n === 0) empty ??= laid;
  }
  return out;
}

/** The cases on the new pool, then every fixture imported into it one after another (their reports) and the cases again. */
async function everyFixtureAtOnce(p: PoolPort, engine: string): Promise<Record<string, Cases>> {
  const described = new Map<string, string[]>();
  const atFirst = await casesNow(p, engine, EMPTY, described, (await poolState(p)).schema);
  const imports: string[] = [];
  for (const f of FIXTURES) imports.push(JSON.stringify([f, ...reported(await imp(p, fixture(f)))]));
  const state = await poolState(p);
  return { [EMPTY]: atFirst, [ALL]: { import: { columns: [], rows: imports }, ...(await casesNow(p, engine, 'all', described, state.schema)) } };
}

describe('pool port: every layout of every fixture, as the golden file and the same rows out of both engines', () => {
  // each on a new pool of its own (the steps layout holds import_id, which the golden file holds from 1), all at once
  // (wall time: each engine is a thread of its own); each `it` waits for its own
  const runs = new Map<string, Promise<Record<string, Cases>>>();
  const run = (key: string, e: Engine, body: (p: PoolPort, engine: string) => Promise<Record<string, Cases>>) => {
    const r = (async () => {
      const p = await e.open();
      try {
        return await body(p, e.name);
      } finally {
        await p.close();
      }
    })();
    r.catch(() => {}); // reported by its own `it`
    runs.set(key, r);
  };
  const [page, cli] = ENGINES as [Engine, Engine];
  const startAll = () => {
    if (runs.size) return;
    run('alone', cli, eachFixtureAlone);
    for (const e of ENGINES) run(e.name, e, everyFixtureAtOnce);
  };
  const got = new Map<string, Record<string, Cases>>();
  it(`${cli.name}: each fixture alone in a new pool, laid out`, async () => {
    startAll();
    got.set('alone', await (runs.get('alone') as Promise<Record<string, Cases>>));
  });
  for (const e of ENGINES) {
    it(`${e.name}: a new pool, then every fixture in it, laid out`, async () => {
      startAll();
      got.set(e.name, await (runs.get(e.name) as Promise<Record<string, Cases>>));
    });
  }
  it('the same rows out of both engines, on a new pool and on the pool that holds every fixture', () => {
    const [a, b] = [got.get(page.name) ?? {}, got.get(cli.name) ?? {}];
    assert.deepEqual(Object.keys(a), [EMPTY, ALL]);
    const differ: string[] = [];
    for (const [pool, cases] of Object.entries(a)) {
      for (const [k, v] of Object.entries(cases)) if (JSON.stringify(b[pool]?.[k]) !== JSON.stringify(v)) differ.push(`${pool} › ${k}`);
    }
    assert.deepEqual(differ, [], `layouts whose rows differ between the engines:\n${differ.join('\n')}`);
    // the comparison means something: every layout has rows from the fixtures, none failed
    const all = a[ALL] ?? {};
    assert.deepEqual(CASES.filter(([k]) => !('rows' in (all[k] ?? {})) || (all[k] as { rows: string[] }).rows.length === 0).map(([k]) => k), []);
  });
  it('the same columns and values as the golden file', () => {
    const alone = got.get('alone') ?? {};
    const mine = Object.fromEntries(Object.entries({ ...alone, ...got.get(page.name) }).map(([f, cases]) => [f, Object.fromEntries(Object.entries(cases).map(([k, c]) => [k, golden(c)]))]));
    if (UPDATE_GOLDEN) {
      // one line per fixture and case: a change shows as a one-line diff
      const lines = Object.entries(mine).map(([f, cases]) => `${JSON.stringify(f)}: {\n${Object.entries(cases).map(([k, o]) => `  ${JSON.stringify(k)}: ${JSON.stringify(o)}`).join(',\n')}\n}`);
      writeFileSync(GOLDEN, `{\n${lines.join(',\n')}\n}\n`);
      return;
    }
    const want = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Record<string, Record<string, Golden>>;
    assert.deepEqual(Object.keys(mine), [...FIXTURES, EMPTY, ALL]);
    assert.deepEqual(Object.keys(mine), Object.keys(want), 'the fixtures compared');
    // every difference named at once, not only the first
    const differ = Object.keys(want).flatMap((f) => Object.keys(want[f] ?? {}).filter((k) => JSON.stringify(mine[f]?.[k]) !== JSON.stringify(want[f]?.[k])).map((k) => `${f} › ${k}`));
    assert.deepEqual(differ, [], `layouts that changed:\n${differ.join('\n')}`);
    // the comparison means something: most fixtures import rows, and the layouts have rows
    const imported = FIXTURES.filter((f) => !/^added 0$/.test(String((want[f]?.import as { columns?: string[] } | undefined)?.columns?.[2])));
    assert.ok(imported.length >= FIXTURES.length / 2, `${imported.length} of ${FIXTURES.length} fixtures import rows`);
    const withRows = FIXTURES.filter((f) => ((want[f]?.sft as { rows?: number } | undefined)?.rows ?? 0) > 0);
    assert.ok(withRows.length > 10, `${withRows.length} fixtures with sft rows`);
  });
});
