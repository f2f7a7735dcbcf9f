/**
 * Claude's prompted inline reasoning (`<thinking>…</thinking>` at the start of its text, as agent prompts ask
 * for it) goes to `reasoning` like `<think>` does (issue 32 item 5), on every path the Anthropic wire module
 * serves (responses, request history) and for text of any provider; a turn with a thinking block, or a text
 * that only mentions the tag, is left as it is.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiMessage, splitInlineThink } from '../../src/contract/message';
import { anthropicRequest, anthropicResponse, assistantMessage } from '../../src/wire/anthropic';

describe('inline <thinking>', () => {
  it('an Anthropic response and a history turn: the block is the reasoning, the rest the content; tool calls stay', () => {
    const r = anthropicResponse({
      type: 'message',
      role: 'assistant',
      content: [{ type: 'text', text: '<thinking>The user wants the file listed; ls will do.</thinking>\n\nI will list it.' }, { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { cmd: 'ls' } }],
      stop_reason: 'tool_use',
    });
    assert.deepEqual([r.message?.reasoning, r.message?.content, r.message?.tool_calls?.[0].id], ['The user wants the file listed; ls will do.', 'I will list it.', 'toolu_1']);
    const req = anthropicRequest({ model: 'claude-3-opus-20240229', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: '<thinking>Greet back.</thinking>Hello!' }] });
    assert.deepEqual([req.messages[1].reasoning, req.messages[1].content], ['Greet back.', 'Hello!']);
  });

  it('left alone: a turn with a thinking block, a tag in mid-text, a user turn; other providers split the same way', () => {
    const withBlock = assistantMessage([{ type: 'thinking', thinking: 'Real thinking.' }, { type: 'text', text: '<thinking>quoted</thinking> answer' }]);
    assert.deepEqual([withBlock.reasoning, withBlock.content], ['Real thinking.', '<thinking>quoted</thinking> answer']);
    assert.equal(assistantMessage([{ type: 'text', text: 'Use a <thinking> tag to reason.' }]).content, 'Use a <thinking> tag to reason.');
    assert.equal(splitInlineThink({ role: 'user', content: '<thinking>x</thinking>y' }).content, '<thinking>x</thinking>y');
    assert.deepEqual(openaiMessage({ role: 'assistant', content: '<thinking>plan</thinking>done' }), { role: 'assistant', content: 'done', reasoning: 'plan' });
    assert.deepEqual(splitInlineThink({ role: 'assistant', content: 'cut off</thinking>rest' }), { role: 'assistant', content: 'cut off</thinking>rest' }, 'no opening tag: only </think> closes a block the template opened');
  });
});
