/**
 * The Anthropic Messages wire module (src/wire/anthropic.ts) on bodies and event streams in the shapes the
 * API sends: content blocks of every kind, tool results (errors included), stop reasons, usage with cache
 * counts, streams cut off or erroring, and payloads whose type only the SSE event name gives. Written to
 * kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addEvent, anthropicAccumulator, anthropicFinishReason, anthropicMessage, anthropicPromptTokens, anthropicRequest, anthropicResponse,
  assistantMessage, isStreamEvent, newAnthropicStream, requestMessages, streamMessage, systemMessage, userMessages,
} from '../../src/wire/anthropic';
import { parseSse } from '../../src/wire/sse';

describe('stop reasons', () => {
  it('map to finish reasons; unknown pass through; blank is null', () => {
    const want: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', pause_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length', model_context_window_exceeded: 'length', refusal: 'content_filter', new_reason: 'new_reason' };
    for (const [k, v] of Object.entries(want)) assert.equal(anthropicFinishReason(k), v, k);
    for (const v of [null, undefined, '']) assert.equal(anthropicFinishReason(v), null, String(v));
  });
});

describe('assistantMessage', () => {
  it('text, thinking, redacted thinking, every tool-use kind, other blocks by type; parts keeps the blocks', () => {
    const bs = [
      { type: 'thinking', thinking: 'Let me look.', signature: 'sig' },
      { type: 'redacted_thinking', data: 'xx' },
      { type: 'text', text: 'Checking ' },
      'raw',
      { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { cmd: 'ls' } },
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
      { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'fetch', input: {} },
      { type: 'tool_use', id: 'toolu_2', name: 'noop' },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      { type: 'text' },
      { notype: 1 },
      7,
    ];
    const m = assistantMessage(bs);
    assert.deepEqual(m, {
      role: 'assistant',
      content: 'Checking raw[web_search_tool_result]',
      parts: JSON.stringify(bs),
      reasoning: 'Let me look.',
      tool_calls: [
        { id: 'toolu_1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"ls"}' } },
        { id: 'srvtoolu_1', type: 'function', function: { name: 'web_search', arguments: '{"query":"q"}' } },
        { id: 'mcptoolu_1', type: 'function', function: { name: 'fetch', arguments: '{}' } },
        { id: 'toolu_2', type: 'function', function: { name: 'noop', arguments: '{}' } },
      ],
    });
  });
  it('plain text content, blocks as JSON text, and no text at all', () => {
    assert.deepEqual(assistantMessage('Hello.'), { role: 'assistant', content: 'Hello.' });
    assert.equal(assistantMessage('[{"type":"text","text":"hi"}]').content, 'hi');
    const only = assistantMessage([{ type: 'tool_use', id: 't', name: 'f', input: {} }]);
    assert.equal(only.content, null);
    assert.equal(only.reasoning, undefined);
    assert.equal('reasoning' in assistantMessage([{ type: 'text', text: 'x' }]), false);
    assert.equal('tool_calls' in assistantMessage([{ type: 'text', text: 'x' }]), false);
  });
});

describe('userMessages and friends', () => {
  it('tool results first, in order, as tool messages (errors marked); the rest one user message', () => {
    const bs = [
      { type: 'text', text: 'Here you go.' },
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt' },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'denied' }], is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_3', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_4', is_error: 'yes', content: 'ok' },
    ];
    const out = userMessages(bs);
    assert.deepEqual(out.map((m) => [m.role, m.content, m.tool_call_id ?? null, m.is_error ?? null]), [
      ['tool', 'a.txt', 'toolu_1', null],
      ['tool', 'denied', 'toolu_2', true],
      ['tool', null, 'toolu_3', true],
      ['tool', 'ok', 'toolu_4', null],
      ['user', 'Here you go.', null, null],
    ]);
    assert.equal(out[0].parts, JSON.stringify([bs[1]]));
    assert.equal(out[4].parts, JSON.stringify([bs[0]]));
    assert.equal(userMessages([{ type: 'tool_result', tool_use_id: 'x' }]).length, 1);
    assert.equal(userMessages([{ type: 'tool_result', tool_use_id: 'x' }])[0].content, null);
    assert.deepEqual(userMessages([]), [{ role: 'user', content: '', parts: '[]' }]);
    assert.deepEqual(userMessages('hi'), [{ role: 'user', content: 'hi' }]);
  });
  it('system: text, blocks, blank', () => {
    assert.deepEqual(systemMessage('Be brief.'), { role: 'system', content: 'Be brief.' });
    assert.deepEqual(systemMessage([{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }]), {
      role: 'system', content: 'A\nB', parts: JSON.stringify([{ type: 'text', text: 'A' }, { type: 'text', text: 'B', cache_control: { type: 'ephemeral' } }]),
    });
    for (const v of [undefined, null, '']) assert.equal(systemMessage(v), null);
  });
  it('anthropicMessage by role', () => {
    assert.equal(anthropicMessage('assistant', 'x')[0].role, 'assistant');
    assert.deepEqual(anthropicMessage('system', ''), [{ role: 'system', content: null }]);
    assert.deepEqual(anthropicMessage('system', 'S'), [{ role: 'system', content: 'S' }]);
    assert.deepEqual(anthropicMessage('developer', 'D'), [{ role: 'developer', content: 'D' }]);
    const mixed = anthropicMessage('human', [{ type: 'tool_result', tool_use_id: 't', content: 'r' }, { type: 'text', text: 'q' }]);
    assert.deepEqual(mixed.map((m) => m.role), ['tool', 'human']);
    assert.deepEqual(anthropicMessage('user', 'u'), [{ role: 'user', content: 'u' }]);
  });
  it('requestMessages: system, then each message; non-objects skipped; messages as JSON text', () => {
    const req = { system: 'S', messages: JSON.stringify([{ role: 'user', content: 'q' }, 5, { role: 'assistant', content: [{ type: 'text', text: 'a' }] }, { role: 'system', content: [{ type: 'text', text: 'mid' }] }]) };
    assert.deepEqual(requestMessages(req).map((m) => [m.role, m.content]), [['system', 'S'], ['user', 'q'], ['assistant', 'a'], ['system', 'mid']]);
    assert.deepEqual(requestMessages({ messages: 'nope' }), []);
    assert.deepEqual(requestMessages({ system: 'S' }), [{ role: 'system', content: 'S' }]);
  });
  it('anthropicRequest', () => {
    const r = anthropicRequest({ model: 'claude-x', stream: true, messages: [{ role: 'user', content: 'q' }], tools: [{ name: 'f', description: 'd', input_schema: { type: 'object' } }] });
    assert.equal(r.model, 'claude-x');
    assert.equal(r.stream, true);
    assert.equal(r.messages.length, 1);
    assert.ok(r.tools?.includes('"function"'));
    assert.ok(r.tools_original?.includes('input_schema'));
    assert.equal(r.previous_response_id, null);
    assert.equal(anthropicRequest({ stream: 'true' }).stream, false);
    assert.deepEqual(anthropicRequest(null).messages, []);
  });
});

describe('responses', () => {
  it('usage: input plus cache reads and writes; none without input_tokens', () => {
    assert.equal(anthropicPromptTokens({ input_tokens: 8, cache_read_input_tokens: 2048, cache_creation_input_tokens: 100 }), 2156);
    assert.equal(anthropicPromptTokens({ input_tokens: 8 }), 8);
    assert.equal(anthropicPromptTokens({ cache_read_input_tokens: 5 }), null);
    assert.equal(anthropicPromptTokens(7), null);
  });
  it('a message body', () => {
    const a = anthropicResponse({ type: 'message', id: 'msg_1', model: 'claude-x', content: [{ type: 'text', text: 'ok' }], stop_reason: 'max_tokens', usage: { input_tokens: 3, output_tokens: 9 } });
    assert.deepEqual([a.id, a.model, a.message?.content, a.finish_reason, a.prompt_tokens, a.completion_tokens, a.error], ['msg_1', 'claude-x', 'ok', 'length', 3, 9, null]);
    const noContent = anthropicResponse({ type: 'message', content: 5 });
    assert.equal(noContent.message, null);
    assert.equal(noContent.completion_tokens, null);
    assert.equal(anthropicResponse({ content: 'plain' }).message?.content, 'plain');
  });
  it('error bodies; an error beside content is a stream error', () => {
    assert.equal(anthropicResponse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }).error, 'Overloaded');
    assert.equal(anthropicResponse({ error: { message: 'bad key' } }).error, 'bad key');
    assert.equal(anthropicResponse({ type: 'error' }).error, 'error');
    const mid = anthropicResponse({ type: 'message', content: [{ type: 'text', text: 'par' }], error: { type: 'overloaded_error', message: 'Overloaded' } });
    assert.equal(mid.message?.content, 'par');
    assert.equal(mid.error, 'Overloaded');
    assert.equal(anthropicResponse({ type: 'message', content: [], error: null }).error, null);
  });
});

describe('streams', () => {
  const sse = (events: object[]) => events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
  const run = (text: string) => {
    const acc = anthropicAccumulator();
    for (const ev of parseSse(text)) acc.push(ev);
    return acc;
  };

  it('a full stream: thinking with signature, text with citations, a tool call, usage merged', () => {
    const acc = run(sse([
      { type: 'message_start', message: { id: 'msg_S', type: 'message', role: 'assistant', model: 'claude-x', content: [{ junk: 1 }], stop_reason: null, usage: { input_tokens: 8, cache_read_input_tokens: 10, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Hmm, ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'ok.' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQ' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'ping' },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_9', name: 'bash', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"cmd":' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"ls"}' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'See ' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'citations_delta', citation: { cited_text: 'a' } } },
      { type: 'content_block_delta', index: 1, delta: { type: 'citations_delta', citation: { cited_text: 'b' } } },
      { type: 'content_block_delta', index: 1, delta: { type: 'citations_delta' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'docs.' } },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } },
      { type: 'message_stop' },
    ]));
    assert.equal(acc.stream.done, true);
    assert.equal(acc.stream.events, 18);
    const msg = streamMessage(acc.stream);
    assert.deepEqual(msg.content, [
      { type: 'thinking', thinking: 'Hmm, ok.', signature: 'EqQ' },
      { type: 'text', text: 'See docs.', citations: [{ cited_text: 'a' }, { cited_text: 'b' }] },
      { type: 'tool_use', id: 'toolu_9', name: 'bash', input: { cmd: 'ls' } },
    ]);
    assert.equal(msg.stop_sequence, undefined);
    assert.deepEqual(msg.usage, { input_tokens: 8, cache_read_input_tokens: 10, output_tokens: 42 });
    const a = acc.result();
    assert.deepEqual([a.id, a.finish_reason, a.prompt_tokens, a.completion_tokens, a.error], ['msg_S', 'tool_calls', 18, 42, null]);
    assert.equal(a.message?.reasoning, 'Hmm, ok.');
    assert.equal(a.message?.content, 'See docs.');
    assert.equal(a.message?.tool_calls?.[0].function.arguments, '{"cmd":"ls"}');
  });

  it('deltas without a block start open the block by delta type', () => {
    const s = newAnthropicStream(3);
    addEvent(s, { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 't' } });
    addEvent(s, { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } });
    addEvent(s, { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'x' } });
    addEvent(s, { type: 'content_block_delta', delta: { type: 'text_delta', text: 'y' } });
    addEvent(s, { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: 5 } });
    addEvent(s, { type: 'content_block_delta', index: 4 });
    addEvent(s, { type: 'content_block_start', index: 5 });
    addEvent(s, { type: 'message_start' });
    assert.equal(s.line, 3);
    assert.deepEqual(streamMessage(s).content, [
      { type: 'thinking', thinking: 't', text: 'y' },
      { type: 'tool_use', input: { a: 1 } },
      { type: 'text', text: 'x' },
      { type: 'tool_use' },
      { type: 'text' },
      { type: 'text', text: '' },
    ]);
    assert.deepEqual(streamMessage(s).role, 'assistant');
  });

  it('a stream cut off mid-arguments keeps the fragment; an error event ends it with the error', () => {
    const acc = run(sse([
      { type: 'message_start', message: { id: 'msg_C', model: 'claude-x', usage: { input_tokens: 4 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 's1', name: 'web_search', input: {} } },
      { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query": "wea' } },
      { type: 'content_block_start', index: 1, content_block: { type: 'mcp_tool_use', id: 'm1', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '  ' } },
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]));
    assert.equal(acc.stream.done, true);
    const msg = streamMessage(acc.stream);
    assert.deepEqual(msg.content, [
      { type: 'server_tool_use', id: 's1', name: 'web_search', input: '{"query": "wea' },
      { type: 'mcp_tool_use', id: 'm1', name: 'f', input: {} },
    ]);
    const a = acc.result();
    assert.equal(a.error, 'Overloaded');
    assert.equal(a.prompt_tokens, 4);
  });

  it('payloads without type take the event name; [DONE] is ignored, anything else not JSON is reported', () => {
    const acc = run('event: message_start\ndata: {"message":{"id":"msg_N"}}\n\nevent: content_block_delta\ndata: {"index":0,"delta":{"type":"text_delta","text":"hi"}}\n\ndata: [DONE]\n\n');
    const a = acc.result();
    assert.equal(a.id, 'msg_N');
    assert.equal(a.message?.content, 'hi');
    assert.equal(a.error, null);
    const bad = run('event: ping\ndata: <html>502</html>\n\ndata: also bad\n\n').result();
    assert.equal(bad.error, 'malformed SSE event from the upstream: <html>502</html>');
    assert.equal(anthropicAccumulator().result().error, null);
  });

  it('isStreamEvent', () => {
    for (const t of ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping']) assert.equal(isStreamEvent({ type: t }), true, t);
    assert.equal(isStreamEvent({ type: 'error', error: { message: 'x' } }), true);
    assert.equal(isStreamEvent({ type: 'error', error: 'x' }), false);
    assert.equal(isStreamEvent({ type: 'message' }), false);
    assert.equal(isStreamEvent({ type: 5 }), false);
    assert.equal(isStreamEvent('message_stop'), false);
  });
});
