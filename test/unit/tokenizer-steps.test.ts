/**
 * One rendering per step (decision 032), differential over the format fixtures imported through the real pipeline:
 * token_counts rows read off one rendering equal the rows rendered twice (prompt with the generation prompt, and the
 * whole conversation) from scratch; rl_steps' re-tokenized prompt ids reusing the previous step's ids equal the ids
 * computed from scratch; the reuse and the single rendering actually happen.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { tableFromIPC } from 'apache-arrow';
import { ingestFile } from '../../src/ingest/pipeline';
import { tableToRows } from '../../src/pool/rows';
import { countStep, type StepInput } from '../../src/tokenizer/counts';
import { parseTools, templateMessage } from '../../src/tokenizer/messages';
import { GenerationCache, type TokenizerProfile } from '../../src/tokenizer/profile';
import { encode, renderText } from '../../src/tokenizer/render';
import { countTexts, promptSuffix, renderStep, stepIds } from '../../src/tokenizer/steps';
import { newRlExportState, type RlRowInput, rlTokenColumns } from '../../src/tokenizer/export-rows';
import { qwen3Profile } from './helpers/qwen3';


type Step = StepInput & { step_index: number };

/** Every format fixture (and the core chat file) imported on its own, as the pool stores the steps. */
async function fixtureSteps(): Promise<Step[]> {
  const dir = new URL('../fixtures/formats/', import.meta.url);
  const files = [...readdirSync(dir).map((f) => new URL(f, dir)), new URL('../fixtures/core/chat.jsonl', import.meta.url)];
  const out: Step[] = [];
  for (const url of files) {
    const name = url.pathname.split('/').pop() as string;
    const rows: Step[] = [];
    await ingestFile(
      new File([readFileSync(url)], name),
      {
        beginImport: async () => 1,
        setImportSource: async () => {},
        appendBatch: async (_id, bytes) => {
          rows.push(...(tableToRows(tableFromIPC(bytes)) as unknown as Step[]));
        },
        commitImport: async () => ({ rowsAdded: rows.length }),
        abortImport: async () => {},
      },
      {},
    ).catch(() => null); // a fixture that is not an import on its own (a sibling file) gives no steps
    out.push(...rows.map((r) => ({ ...r, trajectory_uid: `${name}/${r.trajectory_uid}` })));
  }
  return out.sort((a, b) => (a.trajectory_uid < b.trajectory_uid ? -1 : a.trajectory_uid > b.trajectory_uid ? 1 : a.step_index - b.step_index));
}

/** An agent trajectory as the pool stores it: each step the whole history so far, tool calls with reasoning. */
function agentTrajectory(n: number): Step[] {
  const tools = JSON.stringify([{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } } }]);
  const history: Record<string, unknown>[] = [{ role: 'system', content: 'You are an agent.' }, { role: 'user', content: 'Fix the failing test.' }];
  const out: Step[] = [];
  for (let i = 0; i < n; i++) {
    const last = i === n - 1;
    const response = last
      ? { role: 'assistant', content: 'Fixed.', reasoning: 'All green now.' }
      : { role: 'assistant', content: null, reasoning: `Step ${i}: look at file ${i}.`, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ cmd: `cat f${i}.py` }) } }] };
    out.push({ step_id: `agent:${i}`, trajectory_uid: 'synthetic/agent', step_index: i, messages: [...history], response, tools });
    history.push(response, { role: 'tool', tool_call_id: `c${i}`, content: `def f${i}():\n    return ${i}\n`.repeat(5) });
  }
  return out;
}

describe('one rendering per step (differential over the fixtures)', () => {
  let p: TokenizerProfile;
  let marked: TokenizerProfile;
  let gemma: TokenizerProfile;
  let steps: Step[];
  before(async () => {
    p = await qwen3Profile();
    marked = await qwen3Profile({ template: readFileSync('test/fixtures/tokenizer/qwen3-generation.jinja', 'utf8') });
    gemma = await qwen3Profile({ template: readFileSync('test/fixtures/tokenizer/gemma3-chat-template.jinja', 'utf8') });
    steps = [...(await fixtureSteps()), ...agentTrajectory(12)];
  });

  it('the fixtures give many multi-step trajectories with tool calls', () => {
    assert.ok(steps.length > 200, `${steps.length} steps`);
    assert.ok(steps.filter((s) => s.step_index > 0).length > 50, `${steps.filter((s) => s.step_index > 0).length} later steps`);
    assert.ok(steps.some((s) => (s.messages ?? []).some((m) => Array.isArray(m.tool_calls) && m.tool_calls.length)));
  });

  for (const which of ['qwen3', 'qwen3 + {% generation %}', 'gemma3 (raises on some rows)'] as const) {
    it(`token_counts rows from one rendering equal the rows rendered twice — ${which}`, () => {
      const prof = which === 'qwen3' ? p : which.startsWith('gemma') ? gemma : marked;
      const once = new Map<string, number>();
      const twice = new Map<string, number>();
      const idCache = new Map<string, number[]>();
      let renders = 0;
      let errors = 0;
      for (const s of steps) {
        const a = countStep(prof, s, once);
        const b = countStep(prof, s, twice, { single: false });
        assert.deepEqual(a, b, s.step_id);
        // counted without ids = the lengths of the ids (renderStep, pieces' ids concatenated), and of encode from scratch
        const prompt = (s.messages ?? []).map(templateMessage);
        const ids = renderStep(prof, prompt, s.response ? templateMessage(s.response) : null, { tools: parseTools(s.tools), cache: idCache });
        assert.deepEqual([a.n_prompt_tokens, a.n_tokens], [ids.promptIds?.length ?? null, ids.wholeIds?.length ?? null], s.step_id);
        if (ids.wholeText !== null) assert.equal(a.n_tokens, encode(prof, ids.wholeText).length, s.step_id);
        if (ids.promptText !== null) assert.equal(a.n_prompt_tokens, encode(prof, ids.promptText).length, s.step_id);
        if (a.template_error) errors++;
        renders += renderStep(prof, (s.messages ?? []).map(templateMessage), s.response ? templateMessage(s.response) : null, { tools: parseTools(s.tools) }).renders;
      }
      if (which.startsWith('gemma')) assert.ok(errors > 0, 'the Gemma template raises on some fixture rows');
      else {
        assert.notEqual(promptSuffix(prof), null);
        // one rendering for nearly every step (a second only for steps without a response or without a prompt)
        assert.ok(renders < steps.length * 1.15, `${renders} renderings for ${steps.length} steps`);
      }
    });
  }

  it('counting without ids adds the rest to the prompt only where the prompt ends at a piece boundary', () => {
    const cache = new Map<string, number>();
    const texts = (promptText: string, wholeText: string) => ({ promptText, wholeText, error: null, lost: { reasoning: 0, toolCalls: 0, toolResults: 0, content: 0 }, renders: 2, cut: false });
    // inside a word: BPE merges across the cut, so the whole is counted on its own
    const inWord = countTexts(p, texts('hello wor', 'hello world'), cache);
    assert.deepEqual(inWord, { nPrompt: encode(p, 'hello wor').length, nWhole: encode(p, 'hello world').length });
    assert.notEqual(inWord.nWhole, encode(p, 'hello wor').length + encode(p, 'ld').length);
    // at an added token: the prompt's count plus the rest's
    const whole = '<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n';
    assert.deepEqual(countTexts(p, texts('<|im_start|>user\nhi<|im_end|>\n', whole), cache), { nPrompt: encode(p, '<|im_start|>user\nhi<|im_end|>\n').length, nWhole: encode(p, whole).length });
    // a prompt that is not a prefix of the whole rendering, though an added token starts where it would end
    const notPrefix = texts('x y z w', 'hellooo<|im_end|>');
    assert.notEqual(encode(p, 'x y z w').length + 1, encode(p, 'hellooo<|im_end|>').length);
    assert.equal(countTexts(p, notPrefix, cache).nWhole, encode(p, 'hellooo<|im_end|>').length);
    // read off the whole rendering (cut): taken as its prefix
    assert.equal(countTexts(p, { ...texts('<|im_start|>user\nhi<|im_end|>\n', whole), cut: true }, cache).nWhole, encode(p, whole).length);
  });

  it('rl_steps ids: the prompt reusing the previous step equals the prompt rendered and tokenized from scratch', () => {
    const cache = new Map<string, number[]>();
    let prev: { uid: string; text: string; ids: number[] } | null = null;
    let reused = 0;
    let filled = 0;
    for (const s of steps) {
      const prompt = (s.messages ?? []).map(templateMessage);
      const response = s.response ? templateMessage(s.response) : null;
      const tools = parseTools(s.tools);
      const r = renderStep(p, prompt, response, { tools, cache, prev: prev?.uid === s.trajectory_uid ? prev : null });
      if (r.reused) reused++;
      const ids = stepIds(r, p, cache);
      if (ids) {
        filled++;
        // from scratch: no cache, no reuse, the prompt rendered on its own with the generation prompt
        const promptText = renderText(p, prompt, { tools, addGenerationPrompt: true });
        assert.deepEqual(ids.promptIds, encode(p, promptText), s.step_id);
        const whole = renderText(p, response ? [...prompt, response] : prompt, { tools });
        assert.ok(whole.startsWith(promptText));
        const rest = whole.slice(promptText.length);
        assert.deepEqual(ids.responseIds, encode(p, rest.slice(0, rest.lastIndexOf('<|im_end|>') + '<|im_end|>'.length)), s.step_id);
        assert.deepEqual([...ids.promptIds, ...ids.responseIds, ...encode(p, rest.slice(rest.lastIndexOf('<|im_end|>') + 10))], encode(p, whole));
      }
      prev = r.wholeText !== null && r.wholeIds ? { uid: s.trajectory_uid, text: r.wholeText, ids: r.wholeIds } : null;
    }
    assert.ok(filled > steps.length * 0.7, `${filled} of ${steps.length} steps filled`);
    // Qwen3 renders a last assistant turn without reasoning with an empty think block, and the same turn followed by
    // more without it: the next prompt extends the previous rendering only after a turn with reasoning
    assert.ok(reused >= 11 + 5, `${reused} prompts reused the previous step's ids`);
  });

  it('the two-generation BPE word cache gives the ids of the LRU tokenizers.js has', async () => {
    const lib = await qwen3Profile({ libraryCache: true });
    const model = (x: TokenizerProfile) => (x.tokenizer as unknown as { model: { cache: unknown } }).model.cache;
    assert.ok(model(p) instanceof GenerationCache);
    assert.ok(!(model(lib) instanceof GenerationCache));
    for (const s of steps) {
      const text = [...(s.messages ?? []), s.response].map((m) => String((m as { content?: unknown } | null)?.content ?? '')).join('\n');
      assert.deepEqual(p.tokenizer.encode(text).ids, lib.tokenizer.encode(text).ids, s.step_id);
    }
    const c = new GenerationCache<number>(2);
    c.put('a', 1);
    c.put('b', 2); // the first generation is full: it becomes the old one
    assert.equal(c.get('a'), 1); // found in the old generation, carried into the new one
    c.put('c', 3);
    assert.deepEqual([c.get('a'), c.get('c'), c.get('b')], [1, 3, undefined]);
  });

  it('rl_steps chunks: the sampler ids kept, the others filled as from scratch, the rest counted by cause', () => {
    const rows: RlRowInput[] = steps.map((s, i) => ({
      trajectory_uid: s.trajectory_uid,
      prompt: (s.messages ?? []).map(templateMessage),
      response: s.response ? templateMessage(s.response) : null,
      tools: s.tools,
      // every 7th step carries the sampler's ids
      prompt_ids: i % 7 === 3 ? [1, 2, 3] : null,
      response_ids: i % 7 === 3 ? [4, 5] : null,
    }));
    const st = newRlExportState();
    // in chunks of 50, as the export worker asks for them; the previous step carries across chunks
    let c = 0;
    for (let at = 0; at < rows.length; at += 50) {
      const chunk = rows.slice(at, at + 50);
      const cols = rlTokenColumns(p, chunk, st);
      chunk.forEach((row, i) => {
        const flag = cols.retokenized[i];
        const pids = cols.promptValid[i] ? [...cols.promptIds.subarray(cols.promptOffsets[i], cols.promptOffsets[i + 1])] : null;
        const rids = cols.responseValid[i] ? [...cols.responseIds.subarray(cols.responseOffsets[i], cols.responseOffsets[i + 1])] : null;
        if (row.prompt_ids) {
          assert.equal(flag, 0);
          assert.deepEqual([pids, rids], [[1, 2, 3], [4, 5]]);
        } else if (flag === 1) {
          c++;
          const tools = parseTools(row.tools);
          const promptText = renderText(p, row.prompt ?? [], { tools, addGenerationPrompt: true });
          assert.deepEqual(pids, encode(p, promptText));
          const rest = renderText(p, [...(row.prompt ?? []), row.response as NonNullable<RlRowInput['response']>], { tools }).slice(promptText.length);
          assert.deepEqual(rids, encode(p, rest.slice(0, rest.lastIndexOf('<|im_end|>') + '<|im_end|>'.length)));
        } else {
          assert.equal(flag, 2);
          assert.deepEqual([pids, rids], [null, null]);
        }
      });
    }
    assert.equal(st.rows, rows.length);
    assert.equal(st.retokenized, c);
    assert.equal(st.samplerIds, rows.filter((r) => r.prompt_ids).length);
    assert.equal(st.retokenized + st.samplerIds + Object.values(st.notRetokenized).reduce((a, b) => a + b, 0), rows.length);
    assert.ok(st.reused > 0);
  });
});
