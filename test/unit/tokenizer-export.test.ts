/**
 * Export with tokens, first pass (src/tokenizer/export-rows.ts): an over-long row is left out or cut at a turn
 * boundary (never inside a turn or between a tool call and its results), a row whose template raises is left out
 * with the template's message, and the kept rendering's ids are the ones written.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { planRow, TEMPLATE_RAISED, TOO_LONG, tokenColumns, turnBoundaries } from '../../src/tokenizer/export-rows';
import type { TokenizerProfile } from '../../src/tokenizer/profile';
import { type ChatMessage, renderChat } from '../../src/tokenizer/render';
import { qwen3Profile } from './helpers/qwen3';


/** A message as the sft export writes it (null optional fields kept). */
const msg = (role: string, content: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  role, content, reasoning_content: null, name: null, tool_call_id: null, tool_calls: null, parts: null, ...extra,
});
const call = (id: string, cmd: string) => msg('assistant', '', { tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ cmd }) } }] });
const tools = JSON.stringify([{ type: 'function', function: { name: 'bash', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } } }]);
const long = Array.from({ length: 80 }, (_, i) => `line ${i}: ${'x'.repeat(20)}`).join('\n');
const agent: ChatMessage[] = [
  msg('system', 'You are a coding agent.'),
  msg('user', 'Inspect the repository.'),
  call('c1', 'ls'),
  msg('tool', 'README.md\nsrc', { tool_call_id: 'c1' }),
  msg('assistant', 'It has README.md and src.'),
  msg('user', 'Now read the log.'),
  call('c2', 'cat build.log'),
  msg('tool', long, { tool_call_id: 'c2' }),
  msg('assistant', 'The log has 80 lines.'),
];

describe('export with tokens: rows left out, cut, written', () => {
  let qwen: TokenizerProfile;
  let strict: TokenizerProfile;
  before(async () => {
    qwen = await qwen3Profile();
    // Gemma 3's own chat template (raises on roles that do not alternate) over the Qwen3 tokenizer
    strict = await qwen3Profile({ template: readFileSync('test/fixtures/tokenizer/gemma3-chat-template.jinja', 'utf8') });
  });

  it('turn boundaries: after an assistant answer or a complete block of tool results, never after an unanswered call', () => {
    assert.deepEqual(turnBoundaries(agent), [4, 5, 8, 9]);
    const parallel = [msg('user', 'q'), msg('assistant', '', { tool_calls: [call('a', 'x').tool_calls![0]!, call('b', 'y').tool_calls![0]!] }), msg('tool', '1'), msg('tool', '2'), msg('assistant', 'done')];
    assert.deepEqual(turnBoundaries(parallel), [4, 5], 'not between the two results of one call block');
  });

  it('a row under max_tokens is kept whole; over it, left out by default', () => {
    const whole = renderChat(qwen, agent, { tools: JSON.parse(tools) });
    const fits = planRow(qwen, { messages: agent, tools }, { maxTokens: whole.nTokens });
    assert.deepEqual([fits.keep, fits.cause, fits.nTokens], [null, null, whole.nTokens]);
    const over = planRow(qwen, { messages: agent, tools }, { maxTokens: whole.nTokens - 1 });
    assert.deepEqual([over.keep, over.cause], [0, TOO_LONG]);
  });

  it("truncate 'turn' keeps the longest turn-boundary prefix that fits, and its rendering is what is written", () => {
    const whole = renderChat(qwen, agent, { tools: JSON.parse(tools) });
    const prefix5 = renderChat(qwen, agent.slice(0, 5), { tools: JSON.parse(tools) });
    assert.ok(prefix5.nTokens < whole.nTokens - 100);
    const prefix8 = renderChat(qwen, agent.slice(0, 8), { tools: JSON.parse(tools) });
    // through c2's tool result (8 messages) is the longest boundary: it fits one token under the whole
    assert.equal(planRow(qwen, { messages: agent, tools }, { maxTokens: whole.nTokens - 1, truncate: 'turn' }).keep, 8);
    // one token under that, the prefix through the first answer (5 messages) is the longest that fits
    const max = prefix8.nTokens - 1;
    const cut = planRow(qwen, { messages: agent, tools }, { maxTokens: max, truncate: 'turn' });
    assert.deepEqual([cut.keep, cut.cause, cut.nTokens], [5, null, prefix5.nTokens]);
    const cols = tokenColumns(qwen, [{ messages: agent.slice(0, 5), tools }], max);
    assert.deepEqual([...cols.ids], prefix5.ids);
    assert.deepEqual([...cols.offsets], [0, prefix5.nTokens]);
    assert.equal(cols.masked[0], 1);
    const tight = planRow(qwen, { messages: agent, tools }, { maxTokens: 20, truncate: 'turn' });
    assert.deepEqual([tight.keep, tight.cause], [0, TOO_LONG], 'no prefix fits: left out');
  });

  it("a row whose template raises is left out with the template's message", () => {
    const r = planRow(strict, { messages: [msg('user', 'a'), msg('user', 'b'), msg('assistant', 'c')], tools: null }, {});
    assert.equal(r.keep, 0);
    assert.equal(r.cause, `${TEMPLATE_RAISED}: Conversation roles must alternate user/assistant/user/assistant/...`);
    assert.equal(planRow(strict, { messages: [msg('user', 'a'), msg('assistant', 'c')], tools: null }, {}).cause, null);
    assert.throws(() => tokenColumns(strict, [{ messages: [msg('user', 'a'), msg('user', 'b')], tools: null }], null), /pool changed during the export/);
  });

  it('reasoning the template drops is counted on the kept row', () => {
    const two = [msg('user', 'q1'), msg('assistant', 'a1', { reasoning_content: 'think one' }), msg('user', 'q2'), msg('assistant', 'a2', { reasoning_content: 'think two' })];
    assert.equal(planRow(qwen, { messages: two, tools: null }, {}).lost.reasoning, 1, 'Qwen3 drops the reasoning before the last query');
    assert.equal(planRow(strict, { messages: two, tools: null }, {}).lost.reasoning, 2, "Gemma's template renders no reasoning");
  });
});
