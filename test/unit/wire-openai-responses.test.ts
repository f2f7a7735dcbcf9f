/**
 * The Responses API wire module (src/wire/openai-responses.ts) and the tool-definition helpers
 * (src/wire/tools.ts) on what OpenAI's Responses API and Codex send: input items with reasoning, calls
 * and outputs, custom tools, statuses and their finish reasons, usage in both spellings, streams cut
 * before their done event. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DONE_EVENTS, encryptedReasoning, itemsToMessages, mergeAssistant, responsesAccumulator, responsesFinishReason, responsesRequest, responsesResponse } from '../../src/wire/openai-responses';
import { parseSse } from '../../src/wire/sse';
import { isAnthropicTool, openaiToolShape, toolsOriginal, toolsText } from '../../src/wire/tools';

describe('itemsToMessages', () => {
  it('a string input is one user message; nothing else is no messages', () => {
    assert.deepEqual(itemsToMessages('Hi'), [{ role: 'user', content: 'Hi' }]);
    assert.deepEqual(itemsToMessages('["x"]'), [{ role: 'user', content: 'x' }], 'JSON text of a list is the list');
    assert.deepEqual(itemsToMessages(null), []);
    assert.deepEqual(itemsToMessages({ role: 'user' }), []);
  });

  it('an agent turn: reasoning, text and calls merge into one assistant message; outputs become tool messages', () => {
    const input = [
      { role: 'developer', content: 'Use tools.' },
      { type: 'message', role: 'user', content: 'Fix the bug' },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look at the file.' }], content: [{ type: 'reasoning_text', text: 'Then patch.' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading it.' }] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Now.' }] },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'shell', arguments: '{"cmd": ["cat","a.py"]}' },
      { type: 'custom_tool_call', id: 'ctc_1', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' },
      { type: 'function_call_output', call_id: 'call_1', output: 'print(1)' },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'Done!' }] },
      { type: 'function_call_output', call_id: 'call_3', output: { ok: true } },
      42,
      'next please',
    ];
    const ms = itemsToMessages(input);
    assert.deepEqual(ms, [
      { role: 'developer', content: 'Use tools.' },
      { role: 'user', content: 'Fix the bug' },
      {
        role: 'assistant', content: 'Reading it.\nNow.', reasoning: 'Look at the file.\nThen patch.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"cmd":["cat","a.py"]}' } },
          { id: 'call_2', type: 'function', function: { name: 'apply_patch', arguments: '*** Begin Patch' } },
        ],
      },
      { role: 'tool', content: 'print(1)', tool_call_id: 'call_1' },
      { role: 'tool', content: 'Done!', tool_call_id: 'call_2' },
      { role: 'tool', content: '{"ok":true}', tool_call_id: 'call_3' },
      { role: 'user', content: 'next please' },
    ]);
  });

  it('reasoning after text or calls starts a new assistant message; encrypted reasoning stores no text; a call without call_id keeps its id', () => {
    const ms = itemsToMessages([
      { type: 'message', role: 'assistant', content: 'first' },
      { type: 'reasoning', summary: [], encrypted_content: 'gAAAA…' },
      { type: 'function_call', id: 'fc_9', name: 'ls' },
      { type: 'reasoning', summary: ['plain words'] },
      { type: 'reasoning', summary: [] },
      { type: 'custom_tool_call', call_id: 'c', name: 'x' },
    ]);
    assert.deepEqual(ms, [
      { role: 'assistant', content: 'first' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'fc_9', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
      { role: 'assistant', content: null, reasoning: 'plain words', tool_calls: [{ id: 'c', type: 'function', function: { name: 'x', arguments: '' } }] },
    ]);
  });

  it('a reasoning item right after another reasoning item joins it; an image input keeps its parts', () => {
    const ms = itemsToMessages([
      { type: 'reasoning', summary: [{ text: 'a' }] },
      { type: 'reasoning', content: [{ text: 'b' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'What is this?' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] },
    ]);
    assert.equal(ms.length, 2);
    assert.deepEqual(ms[0], { role: 'assistant', content: null, reasoning: 'a\nb' });
    assert.equal(ms[1].role, 'user');
    assert.ok(ms[1].parts?.includes('data:image/png;base64,AAAA'), 'the image is kept in the parts');
    assert.deepEqual(itemsToMessages([{ role: 'user', content: 'plain' }])[0], { role: 'user', content: 'plain' }, 'no parts for text');
    assert.deepEqual(itemsToMessages([{ type: 'message', content: 'no role' }])[0].role, 'user');
  });
});

describe('itemsToMessages: what the Responses API also sends', () => {
  it('built-in tool calls (web search, file search) are no messages; null items are skipped', () => {
    const ms = itemsToMessages([
      { type: 'message', role: 'user', content: 'News about DuckDB?' },
      null,
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'duckdb news' } },
      { type: 'file_search_call', id: 'fs_1', status: 'completed', queries: ['duckdb'] },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'DuckDB 1.4 is out.' }] },
    ]);
    assert.deepEqual(ms, [{ role: 'user', content: 'News about DuckDB?' }, { role: 'assistant', content: 'DuckDB 1.4 is out.' }]);
  });

  it('a tool output sent as JSON text is stored as sent; an empty assistant item adds nothing', () => {
    const ms = itemsToMessages([
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '{"temp": 18, "sky": "clear"}' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is 18C.' }] },
      { type: 'message', role: 'assistant', content: [] },
      { type: 'function_call', call_id: 'call_2' },
    ]);
    assert.equal(ms[1].content, '{"temp": 18, "sky": "clear"}');
    assert.equal(ms[2].content, 'It is 18C.');
    assert.deepEqual(ms[2].tool_calls?.[0].function, { name: '', arguments: '{}' }, 'a call without a name keeps an empty name');
  });

  it('reasoning whose summary texts are empty but encrypted content is present stores no text; the response says its reasoning is hidden', () => {
    const items = [{ type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: '' }], encrypted_content: 'gAAAAB' }, { type: 'message', role: 'assistant', content: 'ok' }];
    assert.deepEqual(itemsToMessages(items), [{ role: 'assistant', content: 'ok' }]);
    assert.equal(encryptedReasoning(items), true);
    assert.equal(responsesResponse({ object: 'response', status: 'completed', output: items }).reasoning_hidden, 'encrypted');
    const summarized = [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: 'gAAAAB' }];
    assert.equal(encryptedReasoning(summarized), false, 'a summary is the reasoning text');
    assert.equal(responsesResponse({ object: 'response', status: 'completed', output: summarized }).reasoning_hidden, null);
  });
});

describe('mergeAssistant', () => {
  it('none, one, or several messages as one', () => {
    assert.equal(mergeAssistant([]), null);
    const one = { role: 'assistant', content: 'x' };
    assert.equal(mergeAssistant([one]), one);
    const call = { id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{}' } };
    assert.deepEqual(
      mergeAssistant([
        { role: 'assistant', content: null, reasoning: 'r1' },
        { role: 'assistant', content: 'a', reasoning: 'r2', tool_calls: [call] },
        { role: 'assistant', content: 'b', tool_calls: [] },
        { role: 'assistant', content: null, tool_calls: [call] },
      ]),
      { role: 'assistant', content: 'a\nb', reasoning: 'r1\nr2', tool_calls: [call, call] },
    );
    assert.deepEqual(mergeAssistant([{ role: 'assistant', content: null }, { role: 'assistant', content: null }]), { role: 'assistant', content: null });
  });
});

describe('responsesRequest', () => {
  it('instructions become a system message; tools in the chat shape; stream only when true', () => {
    const r = responsesRequest({
      model: 'gpt-5', instructions: 'Be brief.', input: 'Hi', stream: 'yes', previous_response_id: 'resp_0',
      tools: [{ type: 'function', name: 'f', parameters: {} }],
    });
    assert.deepEqual(r.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]);
    assert.equal(r.stream, false);
    assert.equal(r.model, 'gpt-5');
    assert.equal(r.previous_response_id, 'resp_0');
    assert.equal(r.tools, '[{"type":"function","function":{"name":"f","parameters":{}}}]');
    assert.equal(r.tools_original, '[{"type":"function","name":"f","parameters":{}}]', 'the flat list as sent');
    const s = responsesRequest({ input: [{ role: 'user', content: 'x' }], stream: true, tools: '[]' });
    assert.deepEqual(s.messages, [{ role: 'user', content: 'x' }]);
    assert.equal(s.stream, true);
    assert.equal(s.previous_response_id, null);
    assert.deepEqual(responsesRequest('junk').messages, []);
  });
});

describe('responsesFinishReason', () => {
  const msg = { role: 'assistant', content: 'x' };
  const calls = { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function' as const, function: { name: 'f', arguments: '{}' } }] };
  it('each status', () => {
    assert.equal(responsesFinishReason({ status: 'failed' }, msg), 'error');
    assert.equal(responsesFinishReason({ status: 'completed', error: { message: 'x' } }, msg), 'error');
    assert.equal(responsesFinishReason({ status: 'completed', error: null }, msg), 'stop');
    assert.equal(responsesFinishReason({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, msg), 'length');
    assert.equal(responsesFinishReason({ status: 'incomplete' }, msg), 'length');
    assert.equal(responsesFinishReason({ status: 'incomplete', incomplete_details: { reason: 'content_filter' } }, msg), 'content_filter');
    assert.equal(responsesFinishReason({ status: 'completed' }, calls), 'tool_calls');
    assert.equal(responsesFinishReason({}, { ...calls, tool_calls: [] }), 'stop');
    assert.equal(responsesFinishReason({}, null), null);
    assert.equal(responsesFinishReason({ status: 'cancelled' }, msg), 'cancelled');
  });
});

describe('responsesResponse', () => {
  it('id, model, the assistant output merged, usage in both spellings, errors', () => {
    const a = responsesResponse({
      id: 'resp_1', model: 'gpt-5', status: 'completed',
      output: [
        { type: 'reasoning', summary: [{ text: 'think' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] },
        { type: 'function_call_output', call_id: 'x', output: 'ignored' },
      ],
      usage: { input_tokens: 11, output_tokens: 4 },
    });
    assert.deepEqual([a.id, a.model, a.finish_reason, a.prompt_tokens, a.completion_tokens, a.error], ['resp_1', 'gpt-5', 'stop', 11, 4, null]);
    assert.deepEqual(a.message, { role: 'assistant', content: 'Hello', reasoning: 'think' });
    const b = responsesResponse({ output: [], usage: { prompt_tokens: 3, completion_tokens: 2 } });
    assert.deepEqual([b.prompt_tokens, b.completion_tokens, b.message, b.finish_reason], [3, 2, null, null]);
    assert.deepEqual([responsesResponse({ usage: 'x' }).prompt_tokens], [null]);
    assert.equal(responsesResponse({ status: 'failed', error: { code: 'server_error', message: 'boom' } }).error, 'boom');
    assert.equal(responsesResponse({ status: 'failed' }).error, 'response failed');
    assert.equal(responsesResponse({ status: 'failed', error: null }).error, 'response failed');
    assert.equal(responsesResponse({ status: 'completed', error: null }).error, null);
    assert.equal(responsesResponse({ error: {} }).error, '{}');
    assert.equal(responsesResponse({ status: 'failed', error: 500 }).error, 'response failed', 'an error value without text');
  });
});

describe('responsesAccumulator', () => {
  const ev = (type: string, body: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...body })}\n\n`;
  const run = (text: string) => {
    const acc = responsesAccumulator();
    for (const e of parseSse(text)) acc.push(e);
    return acc.result();
  };

  it('the done event wins over deltas; each done kind', () => {
    assert.deepEqual([...DONE_EVENTS].sort(), ['response.completed', 'response.failed', 'response.incomplete']);
    for (const done of DONE_EVENTS) {
      const r = run(ev('response.output_text.delta', { delta: 'partial' }) + ev(done, { response: { id: 'resp_1', status: done.split('.')[1], output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Full text' }] }] } }));
      assert.equal(r.message?.content, 'Full text', done);
      assert.equal(r.id, 'resp_1');
    }
  });

  it('a stream cut before its done event keeps the text deltas; an error event is the error', () => {
    const cut = run(ev('response.created', { response: { id: 'r', status: 'in_progress' } }) + ev('response.output_text.delta', { delta: 'Hel' }) + ev('response.output_text.delta', { delta: 'lo' }) + ev('response.output_text.delta', {}));
    assert.deepEqual(cut.message, { role: 'assistant', content: 'Hello' });
    assert.equal(cut.error, null);
    assert.equal(cut.finish_reason, null);
    assert.equal(run('').message, null);
    const err = run(ev('response.output_text.delta', { delta: 'x' }) + ev('error', { code: 'rate_limit', message: 'Slow down' }));
    assert.equal(err.error, 'Slow down');
    assert.equal(err.finish_reason, 'error');
    const bare = run('event: error\ndata: {"code":"x"}\n\n');
    assert.equal(bare.error, '{"code":"x"}', 'an error event without a message is recorded as sent');
  });

  it('the event name counts when the data has no type; [DONE] is no error; other text is malformed', () => {
    const r = run(`event: response.completed\ndata: ${JSON.stringify({ response: { id: 'r2', status: 'completed', output: [] } })}\n\ndata: [DONE] \n\n`);
    assert.equal(r.id, 'r2');
    assert.equal(r.error, null);
    const m = run('data: oops\n\n');
    assert.match(m.error ?? '', /^malformed SSE event from the upstream: oops/);
    assert.equal(m.finish_reason, 'error');
    const first = run('data: oops\n\ndata: again\n\n');
    assert.match(first.error ?? '', /oops$/, 'the first malformed event is kept');
    const f = run(ev('response.output_text.delta', { delta: 'x' }) + ev('response.failed', { response: { id: 'r3', status: 'failed', error: { message: 'model crashed' }, output: [] } }));
    assert.equal(f.error, 'model crashed');
    assert.equal(f.finish_reason, 'error');
    assert.equal(run(ev('response.completed', { response: 'not an object' })).message, null);
  });

  it('an error after the done event is kept but does not change the finish reason', () => {
    const r = run(ev('response.completed', { response: { id: 'r', status: 'completed', output: [{ type: 'message', role: 'assistant', content: 'ok' }] } }) + ev('error', { message: 'late' }));
    assert.equal(r.error, 'late');
    assert.equal(r.finish_reason, 'stop');
  });
});

describe('tool definitions', () => {
  const anth = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
  const oa = { type: 'function', function: { name: 'f', parameters: {} } };
  it('isAnthropicTool / openaiToolShape', () => {
    assert.equal(isAnthropicTool(anth), true);
    assert.equal(isAnthropicTool({ name: 'x' }), false);
    assert.equal(isAnthropicTool({ name: 5, input_schema: {} }), false);
    assert.equal(isAnthropicTool({ name: 'x', input_schema: {}, function: {} }), false);
    assert.equal(isAnthropicTool('x'), false);
    assert.deepEqual(openaiToolShape(anth), { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: anth.input_schema } });
    assert.deepEqual(openaiToolShape({ name: 'n', input_schema: '{"type":"object"}' }), { type: 'function', function: { name: 'n', parameters: { type: 'object' } } });
    const server = { type: 'web_search_20250305', name: 'web_search' };
    assert.equal(openaiToolShape(server), server);
  });
  it('toolsText / toolsOriginal', () => {
    assert.equal(toolsText([oa]), JSON.stringify([oa]));
    const spaced = JSON.stringify([oa], null, 2);
    assert.equal(toolsText(spaced), spaced, 'text is kept as sent');
    assert.equal(toolsText(' [ ] '), ' [ ] ', 'an empty list as text is kept');
    assert.equal(toolsText('[broken'), '[broken');
    assert.equal(toolsText('nonsense'), null);
    assert.equal(toolsText([]), null);
    assert.equal(toolsText(undefined, [{ name: 'legacy', parameters: {} }]), '[{"type":"function","function":{"name":"legacy","parameters":{}}}]');
    assert.equal(toolsText(undefined, []), null);
    assert.equal(toolsText([anth, oa]), JSON.stringify([openaiToolShape(anth), oa]));
    assert.equal(toolsText(JSON.stringify([anth])), JSON.stringify([openaiToolShape(anth)]));
    assert.equal(toolsOriginal([anth, oa]), JSON.stringify([anth, oa]));
    assert.equal(toolsOriginal(JSON.stringify([anth])), JSON.stringify([anth]));
    assert.equal(toolsOriginal([oa]), null);
    assert.equal(toolsOriginal('x'), null);
  });
});
