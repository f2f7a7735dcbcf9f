/**
 * Tokenizer profiles and token_counts in the browser: the bundled Qwen3 profile loaded from its static files
 * by the tokenizer worker, bad input rejected with the previous profile kept, the profile restored from
 * IndexedDB, and a token_counts row per step queryable as SQL.
 */
import { expect } from '@esm-bundle/chai';
import type { PoolClient } from '../../src/pool/client';
import { BYTES_PER_HELPER, CONTENT_BYTES_SQL } from '../../src/tokenizer/count-plan';
import { countWorkers, type TokenizerService } from '../../src/tokenizer/service';
import '../../src/views/inspector/aw-trainer-view';
import { fixture, importerFor } from './helpers';
import { disposeServices, MODEL, tokenizerPool, tokenizerService } from './tokenizer-helpers';

describe('tokenizer profiles and token_counts', function () {
  this.timeout(120_000);
  let pool: PoolClient;
  // one service (its workers each load the 11 MB tokenizer.json once) for the file: the tests that need a service
  // without a profile make one, which starts no worker until a profile is set
  let svc: TokenizerService;

  before(async () => {
    pool = await tokenizerPool();
    svc = tokenizerService(pool);
  });
  after(() => disposeServices());

  it('sets the bundled Qwen3 profile, counts every step, and caches repeated history', async () => {
    const info = await svc.set({ bundled: 'qwen3' });
    expect(info.name).to.equal('Qwen3 (bundled)');
    expect(info.vocabSize).to.equal(151669);
    const golden = await (await fetch('/test/fixtures/tokenizer/qwen3-golden.json')).json();
    expect(info.templateHash).to.equal(golden.template_sha256);
    const r = await svc.whenCounted();
    const [{ n }] = await pool.rows('SELECT count(*)::INTEGER AS n FROM steps');
    expect(r?.rows).to.equal(n);
    // a small pool (far under BYTES_PER_HELPER of content): the main worker alone, no helper loading the tokenizer
    expect(r?.workers).to.equal(1);
    expect(r && r.tokenized < r.pieces, 'a repeated history is tokenized once').to.equal(true);
    const missing = await pool.rows('SELECT count(*)::INTEGER AS n FROM steps s ANTI JOIN token_counts t USING (step_id)');
    expect(missing[0].n).to.equal(0);
    const bad = await pool.rows(
      'SELECT count(*)::INTEGER AS n FROM token_counts WHERE template_error IS NULL AND (n_tokens IS NULL OR n_tokens <> n_prompt_tokens + n_response_tokens OR n_response_tokens <= 0)',
    );
    expect(bad[0].n).to.equal(0);

    // differential: the counted n_tokens (piece cache, one rendering per step) for the longest step equals its row
    // rendered and tokenized whole (renderChat, no cache), as the inspector does
    const [row] = await pool.rows('SELECT s.messages, s.response, s.tools, t.n_tokens FROM steps s JOIN token_counts t USING (step_id) ORDER BY t.n_tokens DESC LIMIT 1');
    const here = await svc.renderStep({ messages: row.messages as Record<string, unknown>[], response: row.response as Record<string, unknown>, tools: row.tools as string | null });
    expect(here?.error).to.equal(null);
    expect(row.n_tokens).to.equal(here?.nTokens);
    expect(row.n_tokens as number).to.be.greaterThan(50);
  });

  it('helpers count only past BYTES_PER_HELPER of pending content (one per BYTES_PER_HELPER, up to countWorkers()), with the same rows', async () => {
    if (!svc.info()) await svc.set({ bundled: 'qwen3' });
    await svc.whenCounted();
    const rows = async () => pool.rows('SELECT step_id, content_hash, n_prompt_tokens, n_response_tokens, n_tokens, template_error, lost_reasoning, lost_tool_calls, lost_tool_results, lost_content FROM token_counts ORDER BY step_id');
    const one = await rows();
    const [{ steps, bytes }] = await pool.rows(`SELECT count(*)::INTEGER AS steps, sum(${CONTENT_BYTES_SQL})::DOUBLE AS bytes FROM steps`);
    expect(bytes as number).to.be.greaterThan(0).and.lessThan(BYTES_PER_HELPER);
    const all = countWorkers();
    try {
      // every step pending again, its content one byte under the threshold: the main worker alone
      await pool.exec('DELETE FROM token_counts');
      svc.bytesPerHelper = (bytes as number) + 1;
      const under = await svc.count();
      expect([under?.counted, under?.workers]).to.deep.equal([steps, 1]);
      // at the threshold: one helper (when there is a second core); at a third of it: every counting worker
      await pool.exec('DELETE FROM token_counts');
      svc.bytesPerHelper = bytes as number;
      const at = await svc.count();
      expect([at?.counted, at?.workers]).to.deep.equal([steps, Math.min(all, 2)]);
      expect(await rows(), 'the rows of two workers equal those of one').to.deep.equal(one);
      await pool.exec('DELETE FROM token_counts');
      svc.bytesPerHelper = Math.floor((bytes as number) / 3);
      const third = await svc.count();
      expect([third?.counted, third?.workers]).to.deep.equal([steps, all]);
      expect(await rows()).to.deep.equal(one);
    } finally {
      svc.bytesPerHelper = BYTES_PER_HELPER;
    }
    // helpers that hold the profile count whatever the work (they cost nothing more), even a single changed step
    await pool.exec(`UPDATE steps SET messages = list_append(messages, {'role': 'user', 'content': 'and one more', 'reasoning': NULL, 'name': NULL, 'tool_call_id': NULL, 'tool_calls': NULL, 'parts': NULL}) WHERE step_id = (SELECT max(step_id) FROM steps)`);
    const again = await svc.whenCounted();
    expect([again?.counted, again?.workers]).to.deep.equal([1, all]);
  });

  it('a count keeps the rows of steps counted before (same profile, same content) and counts only the rest', async () => {
    // the first test counted the pool's steps under Qwen3
    const snapshot = async () => pool.rows('SELECT step_id, n_prompt_tokens, n_response_tokens, n_tokens, template_error, lost_reasoning, lost_tool_calls, lost_tool_results, lost_content FROM token_counts ORDER BY step_id');
    const before = Number((await pool.rows('SELECT count(*)::INTEGER AS n FROM token_counts'))[0]?.n);
    expect(before).to.be.greaterThan(0);
    const [report] = await importerFor(pool).importFiles([await fixture('formats/openai-responses.jsonl')]);
    expect(report.status).to.equal('done');
    const r = await svc.whenCounted();
    expect(r?.counted).to.equal(report.added);
    expect(r?.rows).to.equal(before + report.added);
    // a step whose messages change is counted again
    await pool.exec(`UPDATE steps SET messages = list_append(messages, {'role': 'user', 'content': 'one more question, a longer one this time', 'reasoning': NULL, 'name': NULL, 'tool_call_id': NULL, 'tool_calls': NULL, 'parts': NULL}) WHERE step_id = (SELECT min(step_id) FROM steps)`);
    const again = await svc.whenCounted();
    expect(again?.counted).to.equal(1);
    const merged = await snapshot();
    // differential: the merged rows equal a count from scratch
    await pool.exec('DELETE FROM token_counts');
    const scratch = await svc.count();
    expect(scratch?.counted).to.equal(before + report.added);
    expect(await snapshot()).to.deep.equal(merged);
    // rows of steps no longer in the pool go at the next count
    await pool.exec(`DELETE FROM steps WHERE step_id = (SELECT min(step_id) FROM steps)`);
    const after = await svc.whenCounted();
    expect(after?.counted).to.equal(0);
    expect(after?.rows).to.equal(before + report.added - 1);
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM token_counts t ANTI JOIN steps s USING (step_id)'))[0].n).to.equal(0);
    // another profile (the same tokenizer, another chat template) counts every step again, and so does the way back
    const [tokenizer, config, template] = await Promise.all(
      [`${MODEL}/tokenizer.json`, `${MODEL}/tokenizer_config.json`, '/test/fixtures/tokenizer/qwen3-generation.jinja'].map(async (u) => (await fetch(u)).text()),
    );
    await svc.set({ tokenizer, config, template, name: 'Qwen3 + generation markers' });
    expect((await svc.whenCounted())?.counted).to.equal(after?.rows);
    await svc.set({ bundled: 'qwen3' });
    expect((await svc.whenCounted())?.counted).to.equal(after?.rows);
  });

  it('bad input is rejected with a message naming what is wrong, and the previous profile stays', async () => {
    const before = svc.info() ?? (await svc.set({ bundled: 'qwen3' }));
    const cfg = await (await fetch(`${MODEL}/tokenizer_config.json`)).json();
    let err = '';
    await svc.set({ tokenizer: '{"model": ', config: cfg }).catch((e: Error) => {
      err = e.message;
    });
    expect(err).to.match(/tokenizer\.json is not valid JSON/);
    err = '';
    await svc.set({ tokenizer: { model: { type: 'FancyNet', vocab: {} } }, config: cfg }).catch((e: Error) => {
      err = e.message;
    });
    expect(err).to.match(/unsupported model type "FancyNet"/);
    expect(svc.info()).to.deep.equal(before);
    // the worker kept it too: counting still works under it
    const r = await svc.count();
    expect(r?.rows).to.be.greaterThan(0);
  });

  it('the chosen profile survives a reload (IndexedDB), and counts nothing again', async () => {
    const info = svc.info() ?? (await svc.set({ bundled: 'qwen3' })); // stored in IndexedDB when it was set
    const second = tokenizerService(pool);
    expect(second.info()).to.equal(null);
    await second.restore();
    expect(second.info()).to.deep.equal(info);
    // its count after the restore finds every step counted: the main worker alone, no helper loading the tokenizer,
    // even with the threshold at 1 byte (nothing pending is no work at all, not merely a small one)
    second.bytesPerHelper = 1;
    const r = await second.whenCounted();
    expect([r?.counted, r?.workers]).to.deep.equal([0, 1]);
  });

  it('<aw-trainer-view>: the step rendered as text, trained tokens highlighted, counts and token ids on hover', async () => {
    const view = document.createElement('aw-trainer-view');
    view.service = tokenizerService(pool); // no profile set yet
    const [step] = await pool.rows(
      "SELECT s.step_id, s.response.content AS answer, t.n_tokens FROM steps s JOIN token_counts t USING (step_id) WHERE s.response.content IS NOT NULL AND len(s.messages) > 1 ORDER BY s.step_id LIMIT 1",
    );
    view.stepId = step.step_id as string;
    document.body.append(view);
    await view.updateComplete;
    await view.updateComplete;
    const root = view.shadowRoot as ShadowRoot;
    expect(root.textContent).to.match(/No tokenizer is set/);
    if (!svc.info()) await svc.set({ bundled: 'qwen3' });
    view.service = svc;
    await view.updateComplete; // its updated() starts a load; the one awaited here is the latest
    await view.load();
    await view.updateComplete;
    const counts = root.querySelector('.counts')?.textContent ?? '';
    expect(counts).to.match(new RegExp(`^\\s*${step.n_tokens} tokens, \\d+ trained`));
    const trained = [...root.querySelectorAll('.t.trained')].map((e) => e.textContent).join('');
    expect(trained).to.contain(String(step.answer).trim());
    const all = [...root.querySelectorAll('.t')];
    expect(all.length).to.be.greaterThan(10);
    expect(all[0].getAttribute('title')).to.match(/^token \d+/);
    expect(root.querySelector('pre')?.textContent).to.contain('<|im_start|>');
    view.remove();
  });
});
