/**
 * The import on the page's pool, through the page's importer and workers (here in Node worker threads:
 * helpers/page-workers.ts): import → query → export; the bad-input corpus (test/fixtures/bad/: good records kept, bad
 * lines reported by number, the pool untouched by failures); Parquet in (veRL prompt rows, the workbench's own steps
 * export round-trip); steps the gateway captured (NULL import_id) re-imported add nothing (issue 20 survivor 1: the
 * commit's anti-join must see them as already in the pool); step ids that collide across files (decision 011); a large
 * JSON Lines file read by three parallel readers (shard workers) makes exactly the rows one reader makes.
 * One pool for the file, emptied before each part (the parallel comparison too: parallel import, its rows, emptied,
 * single-reader import, its rows — a second pool cost a pool start, ≈ 3 CPU-s, and its own ingest worker).
 */
import { after, before, describe, it } from 'node:test';
import { expect } from '@esm-bundle/chai';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm/node';
import type { ImportReport } from '../../src/contract/reports';
import type { StepRecord } from '../../src/contract/step';
import { callToStep } from '../../src/gateway/core/to-step';
import { stepsToIPC } from '../../src/record/step-arrow';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { exporterFor, fixture, importerFor, startPool } from './helpers/page-workers';

let pool: PoolClient;
before(async () => {
  pool = await startPool('import');
});
after(() => pool.terminate());

describe('import → query → export', () => {
  it('imports chat JSONL, keeps good lines, reports bad ones, exports Parquet that reads back', async () => {
    await pool.clear();
    const importer = importerFor(pool);
    const file = fixture('core/chat.jsonl');
    const [rep] = await importer.importFiles([file]);
    expect(rep.status, rep.message ?? '').to.equal('done');
    expect(rep.format).to.equal('openai-chat');
    expect(rep.records).to.equal(30);
    expect(rep.rejected.map((r) => r.line)).to.deep.equal([11, 21]);
    // 30 conversations; every third has two assistant turns
    expect(rep.rows).to.equal(40);
    expect(rep.added).to.equal(40);
    const [t] = await pool.rows(`SELECT count(DISTINCT trajectory_uid) AS t, count(*) FILTER (WHERE is_last) AS last FROM steps`);
    expect(t).to.deep.equal({ t: 30, last: 30 });
    const [tc] = await pool.rows(`SELECT response.tool_calls[1].function.arguments AS a FROM steps WHERE response.tool_calls IS NOT NULL LIMIT 1`);
    expect(JSON.parse(String(tc.a)).expression).to.match(/^\d+\*7$/);
    const errs = await pool.rows('SELECT line FROM import_errors ORDER BY line');
    expect(errs.map((e) => e.line)).to.deep.equal([11, 21]);

    const [again] = await importer.importFiles([file]);
    expect(again.added).to.equal(0);
    expect((await pool.rows('SELECT count(*) AS n FROM steps'))[0].n).to.equal(40);

    const exporter = exporterFor(pool);
    const blob = await exporter.exportDataset({ layout: 'sft', format: 'parquet' });
    const back = tableToRows(tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream()));
    expect(back.length).to.equal(30);
    const withTool = back.find((r) => (r.messages as unknown[]).length === 5) as { messages: { role: string; tool_calls: unknown }[] };
    expect(withTool.messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'tool', 'assistant']);
    const jsonl = await exporter.exportQuery('SELECT step_id, reward FROM steps ORDER BY step_id', { format: 'jsonl' });
    expect((await jsonl.text()).trim().split('\n').length).to.equal(40);
  });
});

describe('bad input corpus', () => {
  let importer: ReturnType<typeof importerFor>;

  before(async () => {
    await pool.clear();
    importer = importerFor(pool);
  });

  const steps = async () => Number((await pool.rows('SELECT count(*) AS n FROM steps'))[0].n);
  const lines = (r: ImportReport) => r.rejected.map((x) => x.line);

  async function imp(name: string): Promise<{ rep: ImportReport; before: number; after: number }> {
    const before = await steps();
    const [rep] = await importer.importFiles([fixture(`bad/${name}`)]);
    return { rep, before, after: await steps() };
  }

  it('malformed JSON lines', async () => {
    const { rep, before, after } = await imp('malformed.jsonl');
    expect(rep.status).to.equal('done');
    expect(rep.records).to.equal(4);
    expect(lines(rep)).to.deep.equal([2, 4, 6]);
    expect(rep.rejected[0].reason).to.match(/malformed JSON/);
    expect(after - before).to.equal(4);
  });

  it('a truncated last line', async () => {
    const { rep } = await imp('truncated-last-line.jsonl');
    expect(rep.rows).to.equal(4);
    expect(lines(rep)).to.deep.equal([5]);
    expect(rep.rejected[0].reason).to.match(/truncated last line/);
  });

  it('a truncated gzip keeps the records before the cut', async () => {
    const { rep, before, after } = await imp('truncated.jsonl.gz');
    expect(rep.status).to.equal('done');
    expect(rep.rows).to.be.greaterThan(100).and.lessThan(3000);
    expect(after - before).to.equal(rep.rows);
    expect(rep.rejected.at(-1)?.reason).to.match(/gzip stream is truncated/);
  });

  it('empty and whitespace-only files say so and add nothing', async () => {
    for (const [name, msg] of [['empty.jsonl', 'empty'], ['whitespace.jsonl', 'only whitespace']] as const) {
      const { rep, before, after } = await imp(name);
      expect(rep.rows).to.equal(0);
      expect(rep.warnings.join(' ')).to.contain(msg);
      expect(after).to.equal(before);
    }
  });

  it('a binary file (PNG renamed .jsonl) fails clearly and leaves the pool unchanged', async () => {
    const { rep, before, after } = await imp('image.png.jsonl');
    expect(rep.status).to.equal('failed');
    expect(rep.message).to.match(/binary file \(PNG image\)/);
    expect(after).to.equal(before);
    const [row] = await pool.rows(`SELECT status, message FROM imports WHERE import_id = ${rep.importId}`);
    expect(row.status).to.equal('failed');
  });

  it('UTF-8 BOM, UTF-16 LE and BE, CRLF', async () => {
    for (const [name, n] of [['bom.jsonl', 3], ['utf16le.jsonl', 3], ['utf16be.jsonl', 3], ['crlf.jsonl', 5]] as const) {
      const { rep } = await imp(name);
      expect(rep.rows, name).to.equal(n);
      expect(rep.rejected, name).to.deep.equal([]);
      const [r] = await pool.rows(`SELECT messages[1].content AS c FROM steps WHERE import_id = ${rep.importId} ORDER BY source_line LIMIT 1`);
      expect(r.c, name).to.equal('question 0');
    }
  });

  it('invalid UTF-8 bytes: records kept with U+FFFD, and a warning', async () => {
    const { rep } = await imp('invalid-utf8.jsonl');
    expect(rep.rows).to.equal(3);
    expect(rep.warnings.join(' ')).to.match(/not valid text/);
  });

  it('a JSON array with a broken element in the middle', async () => {
    const { rep } = await imp('array-broken-middle.json');
    expect(rep.records).to.equal(4);
    expect(lines(rep)).to.deep.equal([4]);
  });

  it('mixed formats in one file', async () => {
    const { rep } = await imp('mixed-formats.jsonl');
    expect(rep.records).to.equal(7);
    expect(rep.rows).to.equal(7);
    expect(rep.rejected).to.deep.equal([]);
    const fmts = await pool.rows(`SELECT DISTINCT source_format AS f FROM steps WHERE import_id = ${rep.importId} ORDER BY f`);
    expect(fmts.map((x) => x.f)).to.deep.equal(['anthropic', 'openai-chat', 'sharegpt']);
    expect(rep.warnings.join(' ')).to.match(/mixed formats/);
  });

  it('10,000 levels of nesting do not break the file', async () => {
    const { rep } = await imp('deep-nesting.jsonl');
    expect(rep.records + rep.rejected.length).to.equal(3);
    const got = await pool.rows(`SELECT messages[1].content AS c FROM steps WHERE import_id = ${rep.importId} ORDER BY source_line`);
    expect(got.map((x) => x.c)).to.include.members(['question 0', 'question 2']);
  });

  it('integers beyond 2^53 stay exact where they are ids', async () => {
    const { rep } = await imp('big-ints.jsonl');
    const ids = await pool.rows(`SELECT DISTINCT trajectory_uid AS t FROM steps WHERE import_id = ${rep.importId} ORDER BY t`);
    expect(ids.map((x) => x.t)).to.deep.equal(['123456789012345678901', '123456789012345678902']);
  });

  it('duplicate step ids: kept once; a second import of the same file adds nothing', async () => {
    const { rep, before, after } = await imp('duplicate-step-ids.jsonl');
    expect(rep.records).to.equal(4);
    expect(after - before).to.equal(3);
    const again = await imp('duplicate-step-ids.jsonl');
    expect(again.rep.added).to.equal(0);
    expect(again.after).to.equal(again.before);
  });

  it('a 50 MB single line', async () => {
    const text = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(50 * 1024 * 1024) }, { role: 'assistant', content: 'long' }] });
    const file = new File([text, '\n', JSON.stringify({ messages: [{ role: 'user', content: 'small' }, { role: 'assistant', content: 'ok' }] }), '\n'], 'huge-line.jsonl');
    const [rep] = await importer.importFiles([file]);
    expect(rep.status).to.equal('done');
    expect(rep.rows).to.equal(2);
    const [r] = await pool.rows(`SELECT max(length(messages[1].content)) AS n FROM steps WHERE import_id = ${rep.importId}`);
    expect(r.n).to.equal(50 * 1024 * 1024);
  });
});

const COLS = `step_id, trajectory_uid, prompt_uid, step_index, is_last, channel, agent, data_source, model, messages, tools, response,
  response_text, finish_reason, prompt_tokens, completion_tokens, prompt_ids, response_ids, reward, latency_ms, status, error, metadata`;

describe('Parquet import', () => {

  it('veRL prompt rows from a Parquet file', async () => {
    await pool.clear();
    const blob = await exporterFor(pool).exportQuery(
      `SELECT 'gsm8k' AS data_source, [{'role': 'user', 'content': 'What is ' || i || ' + 1?'}] AS prompt, 'math' AS ability,
        {'style': 'rule', 'ground_truth': (i + 1)::VARCHAR} AS reward_model, {'split': CASE WHEN i % 4 = 0 THEN 'test' ELSE 'train' END, 'index': i} AS extra_info
       FROM range(12) t(i)`,
      { format: 'parquet' },
    );
    const [rep] = await importerFor(pool).importFiles([new File([blob], 'train.parquet')]);
    expect(rep.status, rep.message ?? '').to.equal('done');
    expect(rep.format).to.equal('verl');
    expect(rep.rows).to.equal(12);
    const rows = await pool.rows(`SELECT messages[1].content AS q, channel, data_source, metadata['reward_model'] AS rm FROM steps ORDER BY source_line`);
    expect(rows[1].q).to.equal('What is 1 + 1?');
    expect(rows.filter((r) => r.channel === 'val').length).to.equal(3);
    expect(JSON.parse(String(rows[1].rm)).ground_truth).to.equal('2');
  });

  it("the workbench's own steps export (Parquet and JSONL) imports back with the same step records", async () => {
    await pool.clear();
    await importerFor(pool).importFiles([fixture('core/chat.jsonl'), fixture('bad/mixed-formats.jsonl')]);
    const ex = exporterFor(pool);
    const original = await pool.rows(`SELECT ${COLS} FROM steps ORDER BY step_id`);
    expect(original.length).to.be.greaterThan(40);
    // both exports first; then each goes back into the emptied pool (a second pool would cost a boot)
    const blobs = { parquet: await ex.exportDataset({ layout: 'steps', format: 'parquet', trainableOnly: false }), jsonl: await ex.exportDataset({ layout: 'steps', format: 'jsonl', trainableOnly: false }) };
    for (const format of ['parquet', 'jsonl'] as const) {
      await pool.clear();
      expect(await pool.rows('SELECT count(*)::INTEGER AS n FROM steps'), format).to.deep.equal([{ n: 0 }]);
      const [rep] = await importerFor(pool).importFiles([new File([blobs[format]], `steps.${format}`)]);
      expect(rep.format, format).to.equal('step-record');
      expect(rep.rows, format).to.equal(original.length);
      const back = await pool.rows(`SELECT ${COLS} FROM steps ORDER BY step_id`);
      expect(back, format).to.deep.equal(original);
    }
  });
});

function captured(traj: string, i: number) {
  const t = Date.UTC(2026, 2, 1, 12, 0, i);
  return callToStep({
    trajectory_uid: traj, prompt_uid: `p-${traj}`, step_index: i, api: 'chat', provider: 'mock', upstream: 'mock', stream: false, model: 'mock',
    messages: [{ role: 'user', content: `What is ${i} + ${i}?` }], tools: null, request: { model: 'mock' },
    responseBody: { id: `chatcmpl-${traj}-${i}`, choices: [{ message: { role: 'assistant', content: String(2 * i) } }] },
    assembled: { id: `chatcmpl-${traj}-${i}`, model: 'mock', message: { role: 'assistant', content: String(2 * i) }, finish_reason: 'stop', prompt_tokens: 9, completion_tokens: 1, prompt_ids: null, response_ids: null, log_probs: null, error: null },
    http_status: 200, error: null, aborted: false, started_at: t, ended_at: t + 5, latency_ms: 5, ttft_ms: null,
    state: null,
  });
}

describe('re-import of gateway-captured steps', () => {
  it('a steps export of captured calls (NULL import_id) re-imports with no duplicates', async () => {
    await pool.clear();
    {
      // imported rows (with an import_id) beside captured ones (without), as in a real pool
      const [first] = await importerFor(pool).importFiles([fixture('core/chat.jsonl')]);
      expect(first.status, first.message ?? '').to.equal('done');
      const steps = [captured('cap-a', 0), captured('cap-a', 1), captured('cap-b', 0)];
      const bytes = stepsToIPC(steps);
      await pool.upsertSteps(bytes);
      const before = await pool.rows(`SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE import_id IS NULL)::INTEGER AS nulls FROM steps`);
      expect(before[0].nulls).to.equal(3);

      for (const format of ['jsonl', 'parquet'] as const) {
        const blob = await exporterFor(pool).exportDataset({ layout: 'steps', format, trainableOnly: false });
        const [rep] = await importerFor(pool).importFiles([new File([blob], `steps.${format}`)]);
        // nothing new: the report says 'unchanged — already imported' (decision 011), never 'done'
        expect(rep.status, rep.message ?? '').to.equal('unchanged');
        expect(rep.alreadyInPool, format).to.equal(before[0].n);
        expect(rep.rows, format).to.equal(before[0].n);
        expect(rep.added, `${format}: rows added on re-import`).to.equal(0);
        const after = await pool.rows(`SELECT count(*)::INTEGER AS n, count(DISTINCT step_id)::INTEGER AS ids FROM steps`);
        expect(after[0], format).to.deep.equal({ n: before[0].n, ids: before[0].n });
        const cap = await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps WHERE trajectory_uid IN ('cap-a', 'cap-b')`);
        expect(cap[0].n, format).to.equal(3);
      }
    }
  });
});

describe('import commit: rows captured outside any import', () => {
  const step = (i: number, importId: number | null, answer = `a${i}`, sourceId = 'capture'): StepRecord => ({
    step_id: `gw-1:${i}`, trajectory_uid: 'gw-1', prompt_uid: 'p', step_index: i, is_last: null, channel: 'train', policy_version: null,
    agent: null, data_source: null, model: 'm', provider: null, messages: [{ role: 'user', content: `q${i}` }], tools: null,
    response: { role: 'assistant', content: answer }, response_text: answer, finish_reason: 'stop', prompt_tokens: null, completion_tokens: null,
    prompt_ids: null, response_ids: null, rollout_log_probs: null, reward: null, started_at: null, ended_at: null, latency_ms: null, ttft_ms: null,
    status: 'ok', error: null, metadata: null, raw: null, source: 'capture', source_format: 'gateway', source_line: null, source_id: sourceId, import_id: importId,
  });

  it('gateway rows (import_id NULL) re-imported from a steps export are already in the pool; changed ones are kept apart', async () => {
    await pool.clear();
    await pool.upsertSteps(stepsToIPC([step(0, null), step(1, null)]));
    const id = await pool.beginImport({ file: 'steps.jsonl', sourceId: 'abcdef0123456789', bytes: 1 });
    await pool.appendBatch(id, stepsToIPC([step(0, id, 'a0', 'abcdef0123456789'), step(1, id, 'a1', 'abcdef0123456789')]));
    const r = await pool.commitImport(id, { format: 'step-record', confidence: 1, records: 2, rowsMade: 2, errors: [] });
    expect(r.rowsAdded).to.equal(0);
    expect(r.alreadyInPool).to.equal(2);
    const id2 = await pool.beginImport({ file: 'steps-edited.jsonl', sourceId: 'fedcba9876543210', bytes: 1 });
    await pool.appendBatch(id2, stepsToIPC([step(0, id2, 'a0', 'fedcba9876543210'), step(1, id2, 'edited', 'fedcba9876543210')]));
    const r2 = await pool.commitImport(id2, { format: 'step-record', confidence: 1, records: 2, rowsMade: 2, errors: [] });
    expect(r2.rowsAdded).to.equal(2);
    expect(r2.collisions).to.deep.equal([{ trajectory: 'gw-1', keptAs: 'gw-1@fedcba987654', steps: 2, how: 'apart' }]);
    const rows = await pool.rows(`SELECT trajectory_uid AS t, count(*) AS n FROM steps GROUP BY ALL ORDER BY t`);
    expect(rows).to.deep.equal([{ t: 'gw-1', n: 2 }, { t: 'gw-1@fedcba987654', n: 2 }]);
    const [imp] = await pool.rows(`SELECT status FROM imports WHERE import_id = ${id}`);
    expect(imp.status).to.equal('unchanged');
  });
});

describe('import: a format forced on records it rejects', () => {
  let importer: ReturnType<typeof importerFor>;
  before(async () => {
    await pool.clear();
    importer = importerFor(pool);
  });

  // ids kept apart, re-imports, traces joined across files, repeats within a file and a file of nothing but bad
  // records: the import commit's paths, tested once on both engines by pool-port.test.ts

  it('records that the chosen format rejects one and all: failed, saying so', async () => {
    const [rep] = await importer.importFiles([new File([`${JSON.stringify({ hello: 1 })}\n${JSON.stringify({ world: 2 })}\n`], 'not-chat.jsonl')], { format: 'openai-chat' });
    expect(rep.status, rep.message ?? '').to.equal('failed');
    expect(rep.message).to.match(/Nothing was imported/);
  });
});


/** An OpenAI chat JSONL file: one conversation per line, some multi-turn with tool calls, some with their own id. */
function chatLines(n: number, seed = 1): string[] {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: n }, (_, i) => {
    const turns = rnd() < 0.3 ? 3 : 1;
    const messages: unknown[] = [{ role: 'system', content: `sys ${i % 7}` }, { role: 'user', content: `question ${i} ${'ü'.repeat(i % 5)}` }];
    for (let t = 0; t < turns; t++) {
      if (t < turns - 1) {
        messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'calc', arguments: `{"x":${t}}` } }] });
        messages.push({ role: 'tool', tool_call_id: `c${t}`, content: String(t) });
      } else messages.push({ role: 'assistant', content: `answer ${i}` });
    }
    const rec: Record<string, unknown> = { messages, reward: i % 3, data_source: `ds${i % 4}`, uid: `g${i % 50}` };
    if (i % 5 === 0) rec.id = `conv-${i}`;
    return JSON.stringify(rec);
  });
}

const linesFile = (lines: string[], name: string) => new File([`${lines.join('\n')}\n`], name);

async function importWith(pool: PoolClient, f: File, shards: number | false): Promise<ImportReport> {
  const [r] = await importerFor(pool).importFiles([f], { shards, shardMinBytes: 1 });
  return r;
}

const ROWS = `SELECT * EXCLUDE (import_id) FROM steps ORDER BY step_id`;

/** The same file through 3 parallel readers and through one, into the file's pool emptied before each: the same rows, rejects and counts. */
async function compare(f: File): Promise<{ parallel: ImportReport; single: ImportReport }> {
  const empty = async () => {
    await pool.clear();
    expect(await pool.rows('SELECT count(*)::INT AS n FROM steps')).to.deep.equal([{ n: 0 }]);
  };
  await empty();
  const parallel = await importWith(pool, f, 3);
  const ra = await pool.rows(ROWS);
  await empty();
  const single = await importWith(pool, f, false);
  const rb = await pool.rows(ROWS);
  expect(parallel.status, parallel.message ?? '').to.equal('done');
  expect(single.shards).to.equal(1);
  for (const k of ['records', 'rows', 'added', 'format'] as const) expect(parallel[k], k).to.equal(single[k]);
  expect(parallel.rejected).to.deep.equal(single.rejected);
  expect(parallel.warnings).to.deep.equal(single.warnings);
  expect(ra.length).to.equal(rb.length);
  expect(JSON.stringify(ra)).to.equal(JSON.stringify(rb));
  return { parallel, single };
}

describe('parallel import of a large JSON Lines file', () => {
  it('three readers make exactly the rows one reader makes', async () => {
    const lines = chatLines(600);
    lines.splice(340, 0, '', '   '); // blank lines are no records
    const { parallel } = await compare(linesFile(lines, 'chat.jsonl'));
    expect(parallel.shards).to.equal(3);
  });

  it('a bad line after the first shard keeps its file line number', async () => {
    const lines = chatLines(600);
    lines[500] = '{"messages": [truncated';
    const { parallel } = await compare(linesFile(lines, 'bad-late.jsonl'));
    expect(parallel.shards).to.equal(3);
    expect(parallel.rejected.map((r) => r.line)).to.deep.equal([501]);
  });

  it('falls back to one reader when a line before a shard does not parse (records would be numbered differently)', async () => {
    const lines = chatLines(600);
    lines[100] = 'not json'; // after the lines the plan samples (SAMPLE, 20), inside the first shard (lines 1–200)
    const { parallel } = await compare(linesFile(lines, 'bad-early.jsonl'));
    expect(parallel.shards).to.equal(1);
    expect(parallel.rejected.map((r) => r.line)).to.deep.equal([101]);
  });

  it('falls back to one reader when one trajectory id appears in two shards', async () => {
    const lines = chatLines(600);
    const same = (i: number) => JSON.stringify({ session_id: 'S-1', messages: [{ role: 'user', content: `turn ${i}` }, { role: 'assistant', content: `reply ${i}` }] });
    lines[3] = same(3);
    lines[580] = same(580);
    const { parallel } = await compare(linesFile(lines, 'span.jsonl'));
    expect(parallel.shards).to.equal(1);
  });
});
