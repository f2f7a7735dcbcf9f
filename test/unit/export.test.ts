/**
 * The export worker on the page's pool (here in Node worker threads: helpers/page-workers.ts).
 * Issue 16 defects 6 and 8, item 9; issue 21: what a trainer would reject never reaches a default export, and what the
 * sources say about the reward target reaches verl_prompts. Inputs are files in the shapes public tools write (OpenAI
 * chat fine-tuning JSONL, OpenAI request/response logs, veRL rows) through the real importer; outputs are read back from
 * the exported Parquet with parquet-wasm.
 */
import { after, before, describe, it } from 'node:test';
import { expect } from '@esm-bundle/chai';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm/node';
import type { ExportDatasetOptions } from '../../src/contract/reports';
import * as layouts from '../../src/export/layouts';
import type { PoolClient } from '../../src/pool/client';
import { type Row, tableToRows } from '../../src/pool/rows';
import { exporterFor, importerFor, startPool } from './helpers/page-workers';

let pool: PoolClient;
before(async () => {
  pool = await startPool('export');
});
after(() => pool.terminate());

const call = (id: string, name: string, args = '{}') => ({ id, type: 'function', function: { name, arguments: args } });
const SYS = { role: 'system', content: 'You are terse.' };
const tool = (name: string) => ({ type: 'function', function: { name, description: name, parameters: { type: 'object', properties: {} } } });

/** OpenAI chat fine-tuning rows: one conversation each, marked by the first user text (or the system text). */
const CHAT = [
  { messages: [SYS, { role: 'user', content: 'ok-1' }, { role: 'assistant', content: null, tool_calls: [call('c1', 'look')] }, { role: 'tool', tool_call_id: 'c1', content: 'found' }, { role: 'assistant', content: 'Done.' }], tools: [tool('look')] },
  { messages: [{ role: 'system', content: 'system-only' }, { role: 'assistant', content: 'Hello, how can I help?' }] },
  { messages: [{ role: 'user', content: 'empty-assistant' }, { role: 'assistant', content: '' }] },
  { messages: [{ role: 'user', content: 'call-then-user' }, { role: 'assistant', content: null, tool_calls: [call('c2', 'look')] }, { role: 'user', content: 'never mind' }, { role: 'assistant', content: 'OK.' }], tools: [tool('look')] },
  { messages: [{ role: 'user', content: 'wrong-id' }, { role: 'assistant', content: null, tool_calls: [call('c3', 'look')] }, { role: 'tool', tool_call_id: 'zzz', content: 'x' }, { role: 'assistant', content: 'OK.' }], tools: [tool('look')] },
  { messages: [{ role: 'user', content: 'ok-2 reasoning' }, { role: 'assistant', content: 'Four.', reasoning_content: 'two plus two' }] },
];

/** OpenAI request/response log lines: one agent run whose second call offers a second tool (tools = union). */
const LOG = [
  {
    request: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'union-of-tools' }], tools: [tool('search')] },
    response: { choices: [{ message: { role: 'assistant', content: null, tool_calls: [call('k1', 'search', '{"q":"x"}')] }, finish_reason: 'tool_calls' }] },
  },
  {
    request: {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'union-of-tools' }, { role: 'assistant', content: null, tool_calls: [call('k1', 'search', '{"q":"x"}')] }, { role: 'tool', tool_call_id: 'k1', content: 'r' }],
      tools: [tool('open_page')],
    },
    response: { choices: [{ message: { role: 'assistant', content: '' }, finish_reason: 'stop' }] },
  },
];

/** veRL rows: a ground truth under reward_model, a top-level `answer`, and two seeds sharing an index. */
const VERL = [
  { data_source: 'toy', prompt: [{ role: 'user', content: 'What is 2+2?' }], ability: 'math', reward_model: { style: 'rule', ground_truth: '4' }, extra_info: { index: 0, split: 'train', note: 'line one\nline two', tools_kwargs: { calc: { create_kwargs: { ground_truth: '4' } } } }, agent_name: 'tool_agent' },
  { data_source: 'toy', prompt: [{ role: 'user', content: 'What is 3+3?' }], answer: '6', extra_info: { index: 1 } },
  { data_source: 'maze', prompt: [{ role: 'user', content: 'Solve the maze.' }], reward_model: { ground_truth: 'exit' }, extra_info: { index: 7, seed: 1 } },
  { data_source: 'maze', prompt: [{ role: 'user', content: 'Solve the maze.' }], reward_model: { ground_truth: 'exit' }, extra_info: { index: 7, seed: 2 } },
];

const jsonl = (name: string, rows: unknown[]) => new File([rows.map((r) => JSON.stringify(r)).join('\n')], name);
const msgs = (v: unknown) => v as { role: string; content: string; reasoning_content: string | null; tool_calls: unknown }[];
const marker = (r: Row, col = 'messages') => msgs(r[col]).find((m) => m.role === 'user')?.content ?? msgs(r[col])[0]?.content;

describe('exported conversations are ones a trainer accepts (issues 16 and 21)', () => {
  let exporter: ReturnType<typeof exporterFor>;
  before(async () => {
    const reports = await importerFor(pool).importFiles([jsonl('chat.jsonl', CHAT), jsonl('calls.jsonl', LOG), jsonl('verl.jsonl', VERL)]);
    expect(reports.map((r) => r.format)).to.deep.equal(['openai-chat', 'openai-log', 'verl']);
    exporter = exporterFor(pool);
  });

  async function parquet(opts: Omit<ExportDatasetOptions, 'format'>): Promise<Row[]> {
    const blob = await exporter.exportDataset({ ...opts, format: 'parquet' });
    return tableToRows(tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream()));
  }

  it('sft by default holds only valid conversations: no system-only, no empty assistant, no unanswered call', async () => {
    const rows = await parquet({ layout: 'sft', where: `s.source_format = 'openai-chat'` });
    expect(rows.map((r) => marker(r)).sort()).to.deep.equal(['ok-1', 'ok-2 reasoning']);
    const ok1 = rows.find((r) => marker(r) === 'ok-1')!;
    const assistant = msgs(ok1.messages).find((m) => m.tool_calls)!;
    expect(assistant.content, 'a tool-call-only turn has content ""').to.equal('');
    const ok2 = rows.find((r) => marker(r) === 'ok-2 reasoning')!;
    expect(msgs(ok2.messages).at(-1)!.reasoning_content, 'reasoning under the name templates read').to.equal('two plus two');
  });

  it('names and counts what it left out, by reason; validOnly: false keeps them with a problem column', async () => {
    const opts = { layout: 'sft' as const, where: `s.source_format = 'openai-chat'` };
    const problems = await pool.rows(layouts.problemsSql(opts));
    expect(Object.fromEntries(problems.map((p) => [p.problem, p.n]))).to.deep.equal({
      'no user turn': 1,
      'empty assistant turn': 1,
      'tool call not answered': 2,
    });
    const all = await parquet({ ...opts, validOnly: false });
    expect(all.length).to.equal(6);
    expect(Object.fromEntries(all.map((r) => [marker(r), r.problem]))).to.deep.include({ 'call-then-user': 'tool call not answered', 'wrong-id': 'tool call not answered', 'ok-1': null });
  });

  it('a trajectory offers the union of its steps’ tools; an empty final assistant turn is no trainable step', async () => {
    const steps = await parquet({ layout: 'rl_steps', where: `s.source_format = 'openai-log'` });
    expect(steps.length, 'the second call answered with an empty turn is not a row').to.equal(1);
    const [[why]] = [(await pool.rows(layouts.problemsSql({ layout: 'rl_steps', where: `s.source_format = 'openai-log'` }))).map((p) => p.problem)];
    expect(why).to.equal('empty response');
    const sft = await parquet({ layout: 'sft', where: `s.source_format = 'openai-log'`, validOnly: false });
    expect(sft.length).to.equal(1);
    const names = (JSON.parse(String(sft[0].tools)) as { function: { name: string } }[]).map((t) => t.function.name);
    expect(names).to.deep.equal(['search', 'open_page']);
    expect(sft[0].problem).to.equal('empty assistant turn');
  });

  it('verl_prompts carries the reward target, the source’s extra_info (typed, text intact), tools_kwargs and agent_name', async () => {
    const rows = await parquet({ layout: 'verl_prompts', where: `s.source_format = 'verl'` });
    const byQ = new Map(rows.map((r) => [`${r.data_source}|${marker(r, 'prompt')}|${(r.extra_info as { seed?: unknown }).seed ?? ''}`, r]));
    expect([...byQ.keys()].sort()).to.deep.equal(['maze|Solve the maze.|1', 'maze|Solve the maze.|2', 'toy|What is 2+2?|', 'toy|What is 3+3?|']);
    const two = byQ.get('toy|What is 2+2?|')!;
    expect(two.reward_model).to.deep.equal({ style: 'rule', ground_truth: '4' });
    expect(byQ.get('toy|What is 3+3?|')!.reward_model).to.deep.include({ ground_truth: '6' });
    const extra = two.extra_info as Record<string, unknown>;
    expect(extra.note).to.equal('line one\nline two');
    expect(extra.tools_kwargs).to.deep.equal({ calc: { create_kwargs: { ground_truth: '4' } } });
    expect(extra.index, 'index is the prompt group').to.equal(two.prompt_uid);
    expect(two.agent_name).to.equal('tool_agent');
    const rl = await parquet({ layout: 'rl_steps', where: `s.source_format = 'verl'`, validOnly: false });
    expect(rl.every((r) => r.response === null && r.problem === 'no response'), 'answer is never the response').to.equal(true);
  });
});

describe('export edge cases', () => {
  it('empty results, all-NULL booleans, nested and typed columns round-trip through Parquet', async () => {
    const ex = exporterFor(pool);
    const back = async (blob: Blob) => tableToRows(tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream()));

    const empty = await ex.exportQuery('SELECT 1 AS x, true AS b WHERE false', { format: 'parquet' });
    expect(await back(empty)).to.deep.equal([]);
    const nulls = await ex.exportQuery('SELECT range::INTEGER AS i, NULL::BOOLEAN AS b FROM range(3)', { format: 'parquet' });
    expect(await back(nulls)).to.deep.equal([{ i: 0, b: null }, { i: 1, b: null }, { i: 2, b: null }]);
    const nested = await ex.exportQuery(`SELECT [{'role': 'user', 'content': 'hi'}] AS messages, MAP {'k': 'v'} AS metadata, TIMESTAMP '2026-01-01 00:00:00' AS t`, { format: 'parquet' });
    const [r] = await back(nested);
    expect(r.messages).to.deep.equal([{ role: 'user', content: 'hi' }]);
    expect(r.metadata, 'MAP as a list of {key, value}: datasets cannot read an Arrow MAP').to.deep.equal([{ key: 'k', value: 'v' }]);
    const csv = await ex.exportQuery(`SELECT 'a,b' AS s, 1 AS n WHERE false`, { format: 'csv' });
    expect((await csv.text()).trim()).to.equal('s,n');
  });
});

describe('export fails loudly when the query fails mid-stream', () => {
  it('a Parquet export whose query errors after some chunks rejects instead of returning a truncated file', async () => {
    const ex = exporterFor(pool);
    const sql = "SELECT CASE WHEN i = 250000 THEN error('boom at 250000') ELSE i END AS i, repeat('y', 100) AS s FROM range(400000) t(i)";
    for (const format of ['parquet', 'jsonl'] as const) {
      let failed: unknown = null;
      try {
        await ex.exportQuery(sql, { format });
      } catch (e) {
        failed = e;
      }
      expect(String((failed as Error | null)?.message), format).to.contain('boom at 250000');
    }
    const ok = await ex.exportQuery('SELECT i FROM range(300000) t(i)', { format: 'parquet' });
    expect(ok.size).to.be.greaterThan(1000);
  });
});
