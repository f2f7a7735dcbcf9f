/**
 * exportDataset({ layout: 'sft', tokens: true }) in the browser: every written row's input_ids and assistant_masks are
 * exactly what Python transformers' apply_chat_template gave for that written row (test/fixtures/tokenizer/
 * export-golden.json, made by scripts/tokenizer-golden/make_export_golden.py from an export of the built app), and
 * the report (the manifest's `tokens` section) counts what was left out by cause: a too-long row, a row whose
 * template raises, and a row whose reasoning the template drops. rl_steps with tokens: re-tokenized prompt_ids /
 * response_ids equal to the ids computed from scratch.
 */
import { expect } from '@esm-bundle/chai';
import { tableFromIPC } from 'apache-arrow';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import type { TokenExportReport } from '../../src/contract/reports';
import { WorkerExporter } from '../../src/export/exporter';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import type { RlRowInput } from '../../src/tokenizer/export-rows';
import { parseTools } from '../../src/tokenizer/messages';
import { loadProfile } from '../../src/tokenizer/profile';
import { encode, renderText } from '../../src/tokenizer/render';
import type { TokenizerInput, TokenizerService } from '../../src/tokenizer/service';
import { emptyPagePool, fixture, importerFor, parquetWasmUrl } from './helpers';
import { disposeServices, forgetProfile, MODEL, tokenizerService } from './tokenizer-helpers';

const FIX = '/test/fixtures/tokenizer';
const exportWorker = () => new Worker(new URL('/workers/export.worker.ts', location.origin), { type: 'module' });

interface Case {
  name: string;
  fixture: string;
  template: string | null;
  maxTokens: number;
  truncate: 'drop' | 'turn';
}
interface GoldenRow {
  messages: number;
  ids: number[];
  assistant_masks: number[] | null;
}
type Row = { messages: { role: string; content: string }[]; input_ids: number[]; assistant_masks: number[]; n_tokens: number; tools: string | null };

const firstUser = (r: Row) => r.messages.find((m) => m.role === 'user')?.content ?? '';
const text = async (p: string) => (await fetch(p)).text();

describe('export with tokens: ids equal transformers, left-out rows counted by cause', function () {
  this.timeout(300_000);
  let cases: Case[];
  let golden: { cases: Record<string, { excluded: Record<string, number>; rows: Record<string, GoldenRow> }> };
  before(async () => {
    await forgetProfile();
    cases = await (await fetch(`${FIX}/export-cases.json`)).json();
    golden = await (await fetch(`${FIX}/export-golden.json`)).json();
    await initParquet({ module_or_path: parquetWasmUrl });
  });
  after(() => disposeServices());

  // the page's pool and one tokenizer service for the suite (a boot and a load of the 11 MB tokenizer.json cost
  // the most here): the two Qwen3 cases differ only in truncate and share one import and profile; a case with another
  // fixture or profile empties the pool, imports its fixture and sets its profile on the same service
  let shared: Promise<{ pool: PoolClient; tokenizer: TokenizerService; exporter: WorkerExporter }> | null = null;
  let loaded = '';
  async function setup(c: Case) {
    shared ??= (async () => {
      const pool = await emptyPagePool();
      const tokenizer = tokenizerService(pool);
      return { pool, tokenizer, exporter: new WorkerExporter({ pool, worker: exportWorker, parquetWasmUrl, tokenizer }) };
    })();
    const s = await shared;
    const key = `${c.fixture}|${c.template}`;
    if (loaded !== key) {
      loaded = '';
      await s.pool.clear();
      const [report] = await importerFor(s.pool).importFiles([await fixture(`tokenizer/${c.fixture}`)]);
      expect(report.status).to.equal('done');
      const input: TokenizerInput = c.template
        ? { tokenizer: await text(`${MODEL}/tokenizer.json`), config: await text(`${MODEL}/tokenizer_config.json`), template: await text(`${FIX}/${c.template}`), name: c.name }
        : { bundled: 'qwen3' };
      await s.tokenizer.set(input);
      loaded = key;
    }
    return s;
  }

  // the Parquet test runs on qwen3-turn's import, before strict-template replaces it
  for (const name of ['qwen3-drop', 'qwen3-turn']) caseTest(name);
  function caseTest(name: string) {
    it(`${name}: the written rows' input_ids and assistant_masks equal transformers', the left-out rows are counted by cause`, async () => {
      const c = cases.find((x) => x.name === name) as Case;
      const g = golden.cases[name];
      const { exporter } = await setup(c);
      let report: TokenExportReport | null = null;
      const blob = await exporter.exportDataset({ layout: 'sft', format: 'jsonl', tokens: true, maxTokens: c.maxTokens, truncate: c.truncate, onTokens: (r) => (report = r) });
      const rows: Row[] = (await blob.text()).trim().split('\n').map((l) => JSON.parse(l));
      expect(rows.map(firstUser).sort()).to.deep.equal(Object.keys(g.rows).sort());
      for (const r of rows) {
        const want = g.rows[firstUser(r)];
        expect(r.messages.length, firstUser(r)).to.equal(want.messages);
        expect(r.input_ids, firstUser(r)).to.deep.equal(want.ids);
        expect(r.n_tokens).to.equal(want.ids.length);
        if (want.assistant_masks) expect(r.assistant_masks, firstUser(r)).to.deep.equal(want.assistant_masks);
        expect(r.assistant_masks.length).to.equal(r.input_ids.length);
        expect(r.assistant_masks.some((x) => x === 1), 'some tokens are trained').to.equal(true);
      }
      const rep = report as unknown as TokenExportReport;
      expect(rep.excluded).to.deep.equal(g.excluded);
      expect(rep.rows).to.equal(rows.length);
      expect(rep.rows_in).to.equal(rows.length + Object.values(g.excluded).reduce((a, b) => a + b, 0));
      expect(rep.tokens).to.equal(rows.reduce((a, r) => a + r.n_tokens, 0));
      expect(rep.max_tokens).to.equal(c.maxTokens);
      // both fixtures have one kept row whose reasoning the template drops (Qwen3: before the last query; Gemma: all)
      expect(rep.lost.reasoning).to.equal(1);
      expect(rep.truncated).to.equal(name === 'qwen3-turn' ? 1 : 0);
      if (name === 'strict-template') {
        expect(rep.excluded).to.deep.equal({ 'longer than max_tokens': 1, 'template raised: Conversation roles must alternate user/assistant/user/assistant/...': 1 });
        expect(rep.mask_source).to.equal('turns');
      }
    });
  }

  it('Parquet: the same columns as INTEGER lists, the same ids as JSONL', async () => {
    const c = cases.find((x) => x.name === 'qwen3-turn') as Case;
    const { exporter } = await setup(c);
    const blob = await exporter.exportDataset({ layout: 'sft', format: 'parquet', tokens: true, maxTokens: c.maxTokens, truncate: 'turn' });
    const t = tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream());
    expect(String(t.schema.fields.find((f) => f.name === 'input_ids')?.type)).to.match(/^List<Int32>$/);
    expect(String(t.schema.fields.find((f) => f.name === 'n_tokens')?.type)).to.equal('Int32');
    const rows = tableToRows(t) as unknown as Row[];
    for (const r of rows) expect(r.input_ids).to.deep.equal(golden.cases['qwen3-turn'].rows[firstUser(r)].ids);

    // rl_steps (decision 032): the steps have no sampler ids, so every step that renders gets re-tokenized ids, equal to
    // the prompt rendered with the generation prompt and tokenized from scratch here (no reuse, no single rendering)
    let report: TokenExportReport | null = null;
    const rl = await exporter.exportDataset({ layout: 'rl_steps', format: 'parquet', tokens: true, onTokens: (r) => (report = r) });
    const rt = tableFromIPC(readParquet(new Uint8Array(await rl.arrayBuffer())).intoIPCStream());
    expect(String(rt.schema.fields.find((f) => f.name === 'prompt_ids')?.type)).to.match(/^List<Int32>$/);
    expect(String(rt.schema.fields.find((f) => f.name === 'ids_retokenized')?.type)).to.equal('Bool');
    const steps = tableToRows(rt) as unknown as (RlRowInput & { ids_retokenized: boolean | null })[];
    const p = await loadProfile({ tokenizer: await (await fetch(`${MODEL}/tokenizer.json`)).json(), config: await (await fetch(`${MODEL}/tokenizer_config.json`)).json() });
    const filled = steps.filter((r) => r.ids_retokenized === true);
    expect(filled.length).to.be.greaterThan(0);
    for (const r of filled) {
      const tools = parseTools(r.tools);
      const promptText = renderText(p, r.prompt ?? [], { tools, addGenerationPrompt: true });
      expect(r.prompt_ids).to.deep.equal(encode(p, promptText));
      const whole = renderText(p, [...(r.prompt ?? []), r.response as NonNullable<RlRowInput['response']>], { tools });
      expect(whole.startsWith(promptText)).to.equal(true);
      expect([...(r.prompt_ids ?? []), ...(r.response_ids ?? [])]).to.deep.equal(encode(p, whole.slice(0, whole.lastIndexOf('<|im_end|>') + '<|im_end|>'.length)));
    }
    const rep = report as unknown as TokenExportReport;
    expect(rep.rows).to.equal(steps.length);
    expect(rep.retokenized).to.equal(filled.length);
    expect((rep.retokenized ?? 0) + (rep.sampler_ids ?? 0) + Object.values(rep.not_retokenized ?? {}).reduce((a, b) => a + b, 0)).to.equal(steps.length);
    expect(rep.tokens).to.equal(filled.reduce((a, r) => a + (r.prompt_ids?.length ?? 0) + (r.response_ids?.length ?? 0), 0));
  });

  caseTest('strict-template');

  it('tokens: true without a profile, or on another layout, is refused with a message', async () => {
    // the suite's pool, with a service of its own that has no profile set
    const { pool } = await (shared ?? setup(cases[0]));
    const exporter = new WorkerExporter({ pool, worker: exportWorker, parquetWasmUrl, tokenizer: tokenizerService(pool) });
    let err = '';
    await exporter.exportDataset({ layout: 'sft', format: 'jsonl', tokens: true }).catch((e: Error) => (err = e.message));
    expect(err).to.match(/No tokenizer is set/);
    await exporter.exportDataset({ layout: 'dpo', format: 'jsonl', tokens: true }).catch((e: Error) => (err = e.message));
    expect(err).to.match(/tokens: true is for the sft and rl_steps layouts/);
  });
});
