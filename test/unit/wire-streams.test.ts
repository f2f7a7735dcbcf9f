/**
 * The wire layer's stream reassembly (src/wire/{sse,anthropic,openai-chat}.ts) on inputs in the shapes providers
 * send and logs record: the survivors of a StrykerJS run, killed. Kept apart from the per-module wire-<api> files so
 * an incremental mutation run re-tests only the mutants these tests reach.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addEvent, anthropicAccumulator, anthropicMessage, assistantMessage, isStreamEvent, newAnthropicStream, streamMessage } from '../../src/wire/anthropic';
import { addChunk, chatAccumulator, chatResponse, isChunk, newStream, streamCompletion } from '../../src/wire/openai-chat';
import { eventPayloads, parseSse, SseParser } from '../../src/wire/sse';

describe('sse', () => {
  it('a data buffer holding complete JSON after extra leading spaces still dispatches at the next data line', () => {
    // `data:  {…}` keeps one space after the one the rule strips
    assert.deepEqual(parseSse('data:  {"n":1}\ndata: {"n":2}\n\n'), [
      { event: null, data: ' {"n":1}' },
      { event: null, data: '{"n":2}' },
    ]);
  });

  it('multi-line data is tested as JSON joined by \\n: a string cut by a line end is not complete', () => {
    // joined without the line end, `{"a":"x` + `y"}` would parse and split the event in two
    assert.deepEqual(parseSse('data: {"a":"x\ndata: y"}\ndata: {"b":1}\n\n'), [{ event: null, data: '{"a":"x\ny"}\n{"b":1}' }]);
  });

  it('a parser reused after end() starts from an empty buffer', () => {
    const p = new SseParser();
    p.push('data: {"a":1}\n\ndata: half');
    assert.deepEqual(p.end(), [{ event: null, data: 'half' }]);
    assert.deepEqual(p.push('data: {"b":2}\n\n'), [{ event: null, data: '{"b":2}' }]);
  });

  it('only a line that starts like JSON is a bare event; an unknown field with a JSON value is ignored', () => {
    assert.deepEqual(parseSse('data: {"a":1}\n\nextra: {"x":1}\nmeta: [1]\n{"b":2}\n'), [
      { event: null, data: '{"a":1}' },
      { event: null, data: '{"b":2}' },
    ]);
  });

  it('eventPayloads: a number or a record typed by `object` is the payload itself', () => {
    assert.deepEqual(eventPayloads(5), [5]);
    const rec = { event: 'done', data: '{"x":1}', object: 'response' };
    assert.deepEqual(eventPayloads(rec), [rec]);
  });
});

describe('anthropic', () => {
  const run = (text: string) => {
    const acc = anthropicAccumulator();
    for (const ev of parseSse(text)) acc.push(ev);
    return acc;
  };
  const events = [
    { type: 'message_start', message: { id: 'msg_P', type: 'message', role: 'assistant', model: 'claude-x', content: [], stop_reason: null, usage: { input_tokens: 5 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
    { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '{"query":"數據"}' } },
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'pause_turn', stop_sequence: null }, usage: { output_tokens: 7 } },
    { type: 'message_stop' },
  ];

  it('a paused server-tool turn, streamed without event lines: the payload type decides; the message as a non-streamed call returns it', () => {
    const acc = run(events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''));
    assert.deepEqual(streamMessage(acc.stream), {
      id: 'msg_P', type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'pause_turn', usage: { input_tokens: 5, output_tokens: 7 },
      content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: '數據' } }],
    });
    const a = acc.result();
    assert.deepEqual([a.finish_reason, a.error, a.message?.tool_calls?.[0].function.arguments], ['stop', null, '{"query":"數據"}']);
  });

  it('an end marker sent with spaces around it is no malformed event', () => {
    assert.equal(run('event: message_stop\ndata: {"type":"message_stop"}\n\ndata:  [DONE] \n\n').result().error, null);
  });

  it('a stream that has not started is an empty assistant message, not done', () => {
    const s = newAnthropicStream(null);
    assert.equal(s.done, false);
    assert.deepEqual(streamMessage(s), { type: 'message', role: 'assistant', content: [] });
    addEvent(s, { type: 'message_delta', delta: { stop_reason: 'end_turn' } });
    assert.deepEqual(streamMessage(s), { type: 'message', role: 'assistant', content: [], stop_reason: 'end_turn' });
  });

  it('deltas without their field, or of a type not known yet, change nothing', () => {
    const s = newAnthropicStream(null);
    addEvent(s, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    addEvent(s, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta' } });
    addEvent(s, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } });
    addEvent(s, { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't', name: 'f', input: {} } });
    addEvent(s, { type: 'content_block_delta', index: 1, delta: { type: 'future_delta', partial_json: '{"x":1}', citation: { cited_text: 'c' } } });
    assert.deepEqual(streamMessage(s).content, [
      { type: 'text', text: 'ok' },
      { type: 'tool_use', id: 't', name: 'f', input: {} },
    ]);
  });

  it('blocks: a null block is skipped, a thinking block without text and a tool use without name read as empty', () => {
    const m = assistantMessage([null, { type: 'thinking', signature: 's' }, { type: 'text', text: 'a' }, { type: 'tool_use', id: 't1', input: { q: 1 } }]);
    assert.equal(m.content, 'a');
    assert.equal(m.reasoning, '');
    assert.deepEqual(m.tool_calls, [{ id: 't1', type: 'function', function: { name: '', arguments: '{"q":1}' } }]);
  });

  it('anthropicMessage: an assistant turn keeps its tool calls and thinking; a tool result keeps the tool role', () => {
    const [m] = anthropicMessage('assistant', [{ type: 'thinking', thinking: 'Plan.' }, { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { cmd: 'ls' } }]);
    assert.deepEqual([m.role, m.reasoning, m.tool_calls?.[0].function.name], ['assistant', 'Plan.', 'bash']);
    const out = anthropicMessage('user', [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'boom', is_error: true }]);
    assert.deepEqual(out.map((x) => [x.role, x.content, x.is_error]), [['tool', 'boom', true]]);
  });

  it('isStreamEvent: null and arrays are no events', () => {
    assert.equal(isStreamEvent(null), false);
    assert.equal(isStreamEvent([{ type: 'ping' }]), false);
  });
});

describe('openai chat', () => {
  const chunk = (delta: object, extra: object = {}) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'm', choices: [{ index: 0, delta, finish_reason: null, ...extra }] });

  it('tool calls from a server that omits index, split across chunks: ids open calls, pieces continue the last one', () => {
    const s = newStream('x', null);
    for (const c of [
      chunk({ tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: null } }] }),
      chunk({ tool_calls: [{ function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ function: { arguments: '"Paris"}' } }] }),
      chunk({ tool_calls: [{ id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }] }),
      chunk({ tool_calls: [{ function: { arguments: '{"tz":"CET"}' } }] }),
      chunk({}, { finish_reason: 'tool_calls' }),
      { id: 'chatcmpl-1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: null }], usage: { prompt_tokens: 9, completion_tokens: 20 } },
    ]) addChunk(s, c);
    const done = streamCompletion(s);
    assert.deepEqual(done.choices, [{
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz":"CET"}' } },
      ] },
      finish_reason: 'tool_calls',
    }]);
  });

  it('a stream whose deltas name no role is the assistant; empty reasoning and refusal are left out', () => {
    const s = newStream('x', null);
    addChunk(s, { choices: [null, { index: 0, delta: { content: 'Hi' } }] });
    assert.deepEqual((streamCompletion(s).choices as object[])[0], { index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: null });
  });

  it('the id of the first chunk stays when later chunks carry none', () => {
    const acc = chatAccumulator();
    acc.push({ event: null, data: JSON.stringify(chunk({ role: 'assistant', content: 'a' })) });
    acc.push({ event: null, data: JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'b' } }] }) });
    const a = acc.result();
    assert.deepEqual([a.id, a.message?.content], ['chatcmpl-1', 'ab']);
  });

  it('vLLM return_tokens_as_token_ids: the logprob tokens give the response ids; entries that are no objects skipped', () => {
    const a = chatResponse({ choices: [{ message: { content: 'ab' }, logprobs: { content: [null, { token: 'token_id:151644', logprob: -0.5 }, { token: 'token_id:9', logprob: -1 }] } }] });
    assert.deepEqual(a.log_probs, [-0.5, -1]);
    assert.deepEqual(a.response_ids, [151644, 9]);
    const plain = chatResponse({ choices: [{ message: { content: 'ab' } }] });
    assert.deepEqual([plain.log_probs, plain.response_ids, plain.error], [null, null, null]);
  });

  it('isChunk(null) is false', () => {
    assert.equal(isChunk(null), false);
  });
});
