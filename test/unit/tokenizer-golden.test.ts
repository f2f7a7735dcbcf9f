/**
 * Golden ids: the bundled Qwen3 tokenizer + chat template rendered and tokenized here must give exactly the
 * ids (and assistant masks) Python transformers' apply_chat_template gave for the same conversations
 * (scripts/tokenizer-golden/make_golden.py wrote test/fixtures/tokenizer/qwen3-golden.json).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { loadProfile, ProfileError, type TokenizerProfile } from '../../src/tokenizer/profile';
import { type ChatMessage, encode, renderChat, tokenPieces } from '../../src/tokenizer/render';
import { qwen3Files, qwen3Profile } from './helpers/qwen3';

const FIX = 'test/fixtures/tokenizer';
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

interface Conv {
  name: string;
  tools: unknown[] | null;
  add_generation_prompt?: boolean;
  messages: ChatMessage[];
}
interface Golden {
  name: string;
  ids?: number[];
  text?: string;
  gen_ids?: number[];
  assistant_masks?: number[];
  error?: string;
}

const convs: Conv[] = readJson(`${FIX}/conversations.json`);
const golden: { template_sha256: string; cases: Golden[] } = readJson(`${FIX}/qwen3-golden.json`);
const { tokenizer: tokenizerJson, config: configJson } = qwen3Files();

describe('tokenizer golden ids (Qwen3, transformers apply_chat_template)', () => {
  let own: TokenizerProfile;
  let gen: TokenizerProfile;
  before(async () => {
    own = await qwen3Profile({ name: 'Qwen3' });
    gen = await qwen3Profile({ template: readFileSync(`${FIX}/qwen3-generation.jinja`, 'utf8') });
  });

  it('describes the profile: vocab size, template hash as transformers sees the template', () => {
    assert.equal(own.templateHash, golden.template_sha256);
    assert.equal(own.vocabSize, 151669);
    assert.equal(own.generationMarkers, false);
    assert.equal(gen.generationMarkers, true);
    assert.equal(own.toolSupport, true);
  });

  for (const c of convs) {
    const g = golden.cases.find((x) => x.name === c.name);
    it(`${c.name}: same text, ids and assistant mask as transformers`, () => {
      assert.ok(g, 'golden case missing');
      const opts = { tools: c.tools, addGenerationPrompt: c.add_generation_prompt ?? false };
      const r = renderChat(own, c.messages, opts);
      if (g.error) {
        assert.equal(r.text, null);
        assert.ok(r.error, 'the template must raise here too');
        assert.match(g.error, /NoneType|not iterable/);
        return;
      }
      assert.equal(r.error, null);
      assert.equal(r.text, g.text);
      assert.deepEqual(r.ids, g.ids);
      const m = renderChat(gen, c.messages, opts);
      assert.deepEqual(m.ids, g.gen_ids);
      assert.equal(m.maskSource, 'generation');
      assert.deepEqual(m.assistantMask, g.assistant_masks);
      // Qwen3's own template has no {% generation %}: the turn-based mask must equal the marked one
      assert.equal(r.maskSource, 'turns');
      if (c.add_generation_prompt) assert.equal(r.nAssistantTokens, 0);
      else assert.deepEqual(r.assistantMask, g.assistant_masks);
    });
  }

  it('the cached piecewise encoding equals encoding the whole text', () => {
    const cache = new Map<string, number[]>();
    for (const c of convs) {
      const r = renderChat(own, c.messages, { tools: c.tools, cache });
      if (!r.text) continue;
      assert.deepEqual(encode(own, r.text, cache), own.tokenizer.encode(r.text, { add_special_tokens: false }).ids);
    }
    assert.ok(cache.size > 0);
  });

  it('token pieces cover the rendered text exactly, multi-byte characters whole, trained pieces = mask', () => {
    for (const c of convs) {
      const r = renderChat(own, c.messages, { tools: c.tools });
      const pieces = tokenPieces(own, r);
      if (!r.text) {
        assert.equal(pieces, null);
        continue;
      }
      assert.ok(pieces);
      assert.equal(pieces.map((x) => x.text).join(''), r.text);
      assert.deepEqual(
        pieces.flatMap((x) => x.ids),
        r.ids,
      );
      assert.ok(!pieces.some((x) => x.text.includes('\uFFFD')));
      const trainedIds = pieces.filter((x) => x.trained).reduce((a, x) => a + x.ids.length, 0);
      assert.ok(trainedIds >= r.nAssistantTokens && trainedIds - r.nAssistantTokens <= 2, c.name);
    }
  });

  it('flags what the rendering lost: earlier reasoning dropped by Qwen3', () => {
    const c = convs.find((x) => x.name === 'reasoning-multi-turn') as Conv;
    const r = renderChat(own, c.messages);
    assert.equal(r.lost.reasoning, 1, 'the first turn reasoning is before the last user query');
    assert.equal(r.lost.toolCalls + r.lost.toolResults + r.lost.content, 0);
  });

  it('flags tool calls and results a template does not render', async () => {
    const noTools = await qwen3Profile({
      template: "{% for m in messages %}{% if m.role != 'tool' %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endif %}{% endfor %}",
    });
    const c = convs.find((x) => x.name === 'tool-call-only-turn-then-agent-loop') as Conv;
    const r = renderChat(noTools, c.messages, { tools: c.tools });
    assert.equal(noTools.toolSupport, false);
    assert.equal(r.lost.toolCalls, 2);
    assert.equal(r.lost.toolResults, 1, 'one tool result is empty, the other not rendered');
  });

  it('a template exception is reported with its message, not thrown', async () => {
    const p = await qwen3Profile({ template: "{{ raise_exception('roles must alternate') }}" });
    const r = renderChat(p, [{ role: 'user', content: 'x' }]);
    assert.equal(r.error, 'roles must alternate');
    assert.equal(renderChat(p, []).error, 'Cannot apply chat template to an empty conversation');
  });

  it('bad input names what is wrong', async () => {
    await assert.rejects(loadProfile({ tokenizer: 'nope', config: configJson }), (e) => e instanceof ProfileError && /tokenizer\.json: not a JSON object/.test(e.message));
    await assert.rejects(
      loadProfile({ tokenizer: { ...tokenizerJson, model: { type: 'FancyNet' } }, config: configJson }),
      (e) => e instanceof ProfileError && /unsupported model type "FancyNet"/.test(e.message),
    );
    await assert.rejects(loadProfile({ tokenizer: tokenizerJson, config: { ...configJson, chat_template: undefined } }), /no chat_template/);
    await assert.rejects(loadProfile({ tokenizer: tokenizerJson, config: configJson, template: '{% for %}' }), /chat template does not parse/);
  });
});
