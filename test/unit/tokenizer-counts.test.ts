/** token_counts rows: counts add up, a repeated history is tokenized once, template errors are flagged per step. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countStep, type StepInput } from '../../src/tokenizer/counts';
import { parseTools, templateMessage } from '../../src/tokenizer/messages';
import type { TokenizerProfile } from '../../src/tokenizer/profile';
import { qwen3Profile } from './helpers/qwen3';


// steps of one agent trajectory as the pool stores them (MESSAGE_TYPE: reasoning, content null on tool-call-only turns)
const sys = { role: 'system', content: 'You are an agent.' };
const user = { role: 'user', content: 'List the files, then read README.md. '.repeat(40) };
const call = (id: string, cmd: string) => ({ role: 'assistant', content: null, reasoning: `I should run ${cmd}.`, tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ cmd }) } }] });
const result = (id: string, out: string) => ({ role: 'tool', content: out, tool_call_id: id });
const tools = JSON.stringify([{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } } }]);
const history = [sys, user, call('a', 'ls'), result('a', 'README.md\nsrc\n'.repeat(50)), call('b', 'cat README.md'), result('b', '# Project\n'.repeat(80))];
const steps: StepInput[] = [2, 4, 6].map((n, i) => ({ step_id: `t:${i}`, trajectory_uid: 't', messages: history.slice(0, n), response: history[n] ?? { role: 'assistant', content: 'Done.' }, tools }));

describe('token_counts rows', () => {
  let p: TokenizerProfile;
  before(async () => {
    p = await qwen3Profile();
  });

  it('prompt + response = whole conversation, and a repeated history is tokenized once', () => {
    const cache = new Map<string, number>();
    let encoded = 0;
    // pieces reach the tokenizer through the pre-token memo (fast-encode.ts)
    const original = p.encodePiece;
    assert.ok(original);
    p.encodePiece = (text: string) => {
      encoded += text.length;
      return original(text);
    };
    const rows = steps.map((s) => countStep(p, s, cache));
    p.encodePiece = original;
    for (const r of rows) {
      assert.equal(r.template_error, null);
      assert.equal(r.n_tokens, (r.n_prompt_tokens as number) + (r.n_response_tokens as number));
      assert.ok((r.n_response_tokens as number) > 0);
    }
    assert.ok((rows[2].n_tokens as number) > (rows[1].n_tokens as number));
    // every distinct piece once: far less text encoded than the three steps' renderings (prompt + whole each)
    const rendered = rows.reduce((a, r) => a + (r.n_tokens as number) + (r.n_prompt_tokens as number), 0);
    const distinctChars = [...cache.keys()].reduce((a, k) => a + k.length, 0);
    assert.equal(encoded, distinctChars);
    assert.ok(rendered > 0);
    const repeated = steps.flatMap((s) => [...(s.messages ?? []), s.response]).reduce((a, m) => a + String((m as { content: unknown }).content ?? '').length, 0);
    assert.ok(encoded < repeated, `encoded ${encoded} chars of ${repeated} message chars`);
  });

  it('a null-content tool-call turn renders (content → "") and earlier reasoning dropped by Qwen3 is counted', () => {
    assert.equal(templateMessage(call('a', 'ls')).content, '');
    const r = countStep(p, steps[2], new Map());
    assert.equal(r.template_error, null);
    // both earlier tool-call turns come after the last user query, so Qwen3 keeps their reasoning
    assert.equal(r.lost_reasoning, 0);
    const twoQueries = countStep(p, { ...steps[2], messages: [...history.slice(0, 4), { role: 'user', content: 'go on' }] }, new Map());
    assert.equal(twoQueries.lost_reasoning, 1);
  });

  it('a template that raises flags the step with its message and no counts', async () => {
    const strict = await qwen3Profile({
      template: "{% for m in messages %}{% if m.role == 'tool' %}{{ raise_exception('tool role not supported') }}{% endif %}{{ m.content }}{% endfor %}",
    });
    const r = countStep(strict, steps[1], new Map());
    assert.equal(r.template_error, 'tool role not supported');
    assert.equal(r.n_tokens, null);
    assert.equal(countStep(strict, steps[0], new Map()).template_error, null);
  });
});

describe('parseTools (the tools text parsed once per run of equal texts)', () => {
  it('each text gives its own list, a repeated text the same one, bad or empty text null', () => {
    const a = JSON.stringify([{ type: 'function', function: { name: 'a' } }]);
    const b = JSON.stringify([{ type: 'function', function: { name: 'b' } }]);
    const first = parseTools(a);
    assert.deepEqual(first, [{ type: 'function', function: { name: 'a' } }]);
    assert.equal(parseTools(a), first);
    assert.deepEqual(parseTools(b), [{ type: 'function', function: { name: 'b' } }]);
    assert.deepEqual(parseTools(a), first);
    assert.equal(parseTools('[oops'), null);
    assert.equal(parseTools('[]'), null);
    assert.equal(parseTools('{"not": "a list"}'), null);
    assert.deepEqual(parseTools(b), [{ type: 'function', function: { name: 'b' } }]);
    assert.equal(parseTools('  '), null);
    assert.equal(parseTools(null), null);
  });
});
