/**
 * The Chat Completions wire module (src/wire/openai-chat.ts) on what OpenAI and OpenAI-compatible servers
 * (vLLM, SGLang, Ollama) send: chunk streams with parallel tool calls (with and without `index`), reasoning,
 * refusals, legacy completions, logprobs and token ids, usage and errors. Written to kill mutants StrykerJS
 * found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addChunk, chatAccumulator, chatRequest, chatResponse, choiceMessage, isChunk, newStream, streamCompletion } from '../../src/wire/openai-chat';
import { parseSse } from '../../src/wire/sse';

const chunk = (choices: object[], extra: object = {}) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1764670000, model: 'gpt-4.1', choices, ...extra });
const stream = (chunks: object[]) => {
  const s = newStream('chatcmpl-1', 7);
  for (const c of chunks) addChunk(s, c as never);
  return s;
};

describe('isChunk', () => {
  it('by object name or by a delta in a choice', () => {
    assert.equal(isChunk({ object: 'chat.completion.chunk' }), true);
    assert.equal(isChunk({ choices: [{ delta: {} }] }), true);
    assert.equal(isChunk({ choices: [5, { delta: { content: 'x' } }] }), true);
    assert.equal(isChunk({ choices: [{ message: {} }] }), false);
    assert.equal(isChunk({ choices: 'x' }), false);
    assert.equal(isChunk('chunk'), false);
  });
});

describe('stream reassembly', () => {
  it('content, reasoning (both spellings), refusal, role, finish, usage, fingerprint, first model and created', () => {
    const s = stream([
      chunk([{ index: 0, delta: { role: 'assistant', content: '' } }], { system_fingerprint: 'fp_1' }),
      chunk([{ index: 0, delta: { reasoning_content: 'Think ' } }], { model: 'other', created: 5, system_fingerprint: 'fp_2' }),
      chunk([{ index: 0, delta: { reasoning: 'more.', role: '' } }]),
      chunk([{ index: 0, delta: { content: 'Hello' } }, 5 as unknown as object]),
      chunk([{ index: 0, delta: { content: ' world', refusal: 'no' } }]),
      chunk([{ index: 0, delta: {}, finish_reason: '' }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]),
      chunk([], { usage: { prompt_tokens: 5, completion_tokens: 2 } }),
      chunk([], { usage: null }),
      { id: 'x', choices: 'none' },
    ]);
    const c = streamCompletion(s);
    assert.deepEqual(c, {
      id: 'chatcmpl-1', object: 'chat.completion', created: 1764670000, model: 'gpt-4.1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello world', reasoning_content: 'Think more.', refusal: 'no' }, finish_reason: 'stop' }],
      system_fingerprint: 'fp_1', usage: { prompt_tokens: 5, completion_tokens: 2 }, stream_chunks: 10,
    });
    assert.equal(s.line, 7);
  });

  it('a role-only stream has null content; created is only taken from numbers; choices sorted by index', () => {
    const s = stream([
      { choices: [{ index: 1, delta: { role: 'assistant', content: 'B' } }], created: '2025' },
      { choices: [{ delta: { role: 'assistant' } }] },
    ]);
    const c = streamCompletion(s);
    assert.equal(c.created, null);
    assert.deepEqual((c.choices as { index: number; message: { content: unknown } }[]).map((x) => [x.index, x.message.content]), [[0, null], [1, 'B']]);
    assert.equal('system_fingerprint' in c, false);
    assert.equal('usage' in c, false);
    assert.equal('error' in c, false);
    assert.equal('prompt_token_ids' in c, false);
  });

  it('parallel tool calls by index, arguments in pieces, name sent once or repeated', () => {
    const s = stream([
      chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'write', arguments: '' } }] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"p":' } }] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { name: 'read', arguments: '"a"}' } }, 3] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 1, id: '', function: { arguments: { x: 1 } } }] } }]),
      chunk([{ index: 0, delta: { tool_calls: [{ index: 1, type: 'custom', function: { arguments: null } }] } }]),
      chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
    ]);
    const msg = (streamCompletion(s).choices as { message: { tool_calls: unknown } }[])[0].message;
    assert.deepEqual(msg.tool_calls, [
      { id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"p":"a"}' } },
      { id: 'call_b', type: 'custom', function: { name: 'write', arguments: '{"x":1}' } },
    ]);
  });

  it('servers that omit index: a new id opens a call, a known id or no id continues', () => {
    const s = stream([
      chunk([{ delta: { tool_calls: [{ id: 'c1', function: { name: 'ls', arguments: '{"d":' } }] } }]),
      chunk([{ delta: { tool_calls: [{ function: { arguments: '"."}' } }] } }]),
      chunk([{ delta: { tool_calls: [{ id: 'c2', function: { name: 'cat', arguments: '{"f":' } }] } }]),
      chunk([{ delta: { tool_calls: [{ id: 'c1', function: { arguments: '' } }] } }]),
      chunk([{ delta: { tool_calls: [{ id: 'c2', function: { arguments: '"x"}' } }] } }]),
      chunk([{ delta: { tool_calls: [{ index: -1, function: { arguments: '' } }] } }]),
    ]);
    const calls = (streamCompletion(s).choices as { message: { tool_calls: { id: string; function: { name: string; arguments: string } }[] } }[])[0].message.tool_calls;
    assert.deepEqual(calls.map((c) => [c.id, c.function.name, c.function.arguments]), [['c1', 'ls', '{"d":"."}'], ['c2', 'cat', '{"f":"x"}']]);
    const first = stream([chunk([{ delta: { tool_calls: [{ function: { name: 'f', arguments: '{}' } }] } }])]);
    assert.deepEqual((streamCompletion(first).choices as { message: { tool_calls: unknown[] } }[])[0].message.tool_calls, [{ id: null, type: 'function', function: { name: 'f', arguments: '{}' } }]);
  });

  it('legacy function_call deltas and text_completion streams', () => {
    const s = stream([
      { choices: [{ index: 0, delta: { function_call: { name: 'get', arguments: '{"a"' } } }] },
      { choices: [{ index: 0, delta: { function_call: { arguments: ':1}' } } }] },
      { object: 'text_completion', choices: [{ index: 1, text: 'Once ', finish_reason: null }] },
      { object: 'text_completion', choices: [{ index: 1, text: 'upon.', finish_reason: 'length' }] },
    ]);
    const choices = streamCompletion(s).choices as { message: { content: unknown; tool_calls?: unknown }; finish_reason: unknown }[];
    assert.deepEqual(choices[0].message.tool_calls, [{ id: null, type: 'function', function: { name: 'get', arguments: '{"a":1}' } }]);
    assert.equal(choices[1].message.content, 'Once upon.');
    assert.equal(choices[1].finish_reason, 'length');
  });

  it('non-streamed message-shaped choices in a chunk list are read too', () => {
    const c = streamCompletion(stream([{ choices: [{ message: { role: 'assistant', content: 'whole' } }] }]));
    assert.equal((c.choices as { message: { content: unknown } }[])[0].message.content, 'whole');
  });

  it('vLLM logprobs and token ids (prompt ids from the chunk or the choice, first wins)', () => {
    const s = stream([
      chunk([{ index: 0, delta: { content: 'a' }, logprobs: { content: [{ token: 'token_id:11', logprob: -0.5 }, 4] }, token_ids: [11], prompt_token_ids: [1, 2] }]),
      chunk([{ index: 0, delta: { content: 'b' }, logprobs: { content: [{ token: 'token_id:12', logprob: -0.25 }] }, token_ids: [12], prompt_token_ids: [9] }], { prompt_token_ids: [8] }),
      chunk([{ index: 0, delta: {}, token_ids: [1.5], logprobs: { content: 'x' } }]),
    ]);
    const c = streamCompletion(s);
    assert.deepEqual(c.prompt_token_ids, [1, 2]);
    const ch = (c.choices as Record<string, unknown>[])[0];
    assert.deepEqual(ch.token_ids, [11, 12]);
    assert.deepEqual(ch.logprobs, { content: [{ token: 'token_id:11', logprob: -0.5 }, { token: 'token_id:12', logprob: -0.25 }] });
    const a = chatResponse(c);
    assert.deepEqual([a.prompt_ids, a.response_ids, a.log_probs], [[1, 2], [11, 12], [-0.5, -0.25]]);
    const top = stream([chunk([{ index: 0, delta: { content: 'a' } }], { prompt_token_ids: [3, 4] })]);
    assert.deepEqual(streamCompletion(top).prompt_token_ids, [3, 4]);
  });

  it('an error in a chunk is kept', () => {
    const s = stream([chunk([{ index: 0, delta: { content: 'par' } }]), { error: { message: 'upstream died' } }, { error: null }]);
    assert.deepEqual(streamCompletion(s).error, { message: 'upstream died' });
    assert.equal(chatResponse(streamCompletion(s)).error, 'upstream died');
  });
});

describe('chatRequest', () => {
  it('messages (also as JSON text), tools and legacy functions, stream flag, model', () => {
    const r = chatRequest({ model: 'gpt-4.1', stream: true, messages: JSON.stringify([{ role: 'system', content: 'S' }, { role: 'user', content: 'q' }]), tools: JSON.stringify([{ type: 'function', function: { name: 'f', parameters: {} } }]) });
    assert.deepEqual(r.messages.map((m) => [m.role, m.content]), [['system', 'S'], ['user', 'q']]);
    assert.equal(r.model, 'gpt-4.1');
    assert.equal(r.stream, true);
    assert.ok(r.tools?.includes('"f"'));
    assert.equal(r.previous_response_id, null);
    assert.ok(chatRequest({ functions: [{ name: 'legacy_fn', parameters: {} }] }).tools?.includes('legacy_fn'));
    assert.equal(chatRequest({ stream: 'yes' }).stream, false);
  });
  it('legacy completions: the prompt (text or list) is the user turn, only when there are no messages', () => {
    assert.deepEqual(chatRequest({ prompt: 'Once upon' }).messages, [{ role: 'user', content: 'Once upon' }]);
    assert.deepEqual(chatRequest({ prompt: ['a', 5, null] }).messages, [{ role: 'user', content: 'a\n5\n' }]);
    assert.deepEqual(chatRequest({ prompt: null }).messages, []);
    assert.deepEqual(chatRequest({ messages: [{ role: 'user', content: 'm' }], prompt: 'p' }).messages.map((m) => m.content), ['m']);
    assert.deepEqual(chatRequest(null).messages, []);
  });
});

describe('chatResponse and choiceMessage', () => {
  it('a completion body: first choice, usage (both spellings), finish', () => {
    const a = chatResponse({ id: 'c1', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }, { message: { content: 'second' } }], usage: { prompt_tokens: 3, completion_tokens: 1 } });
    assert.deepEqual([a.id, a.model, a.message?.content, a.finish_reason, a.prompt_tokens, a.completion_tokens, a.error], ['c1', 'm', 'hi', 'stop', 3, 1, null]);
    const b = chatResponse({ choices: [], usage: { input_tokens: 4, output_tokens: 2 } });
    assert.deepEqual([b.message, b.prompt_tokens, b.completion_tokens, b.prompt_ids], [null, 4, 2, null]);
    assert.deepEqual(chatResponse({ choices: [{ message: { content: 'x' }, prompt_token_ids: [5] }] }).prompt_ids, [5]);
    assert.equal(chatResponse({ choices: [{ message: { content: 'x' }, token_ids: [1, 2] }] }).response_ids?.length, 2);
    assert.equal(chatResponse({ error: 'quota exceeded' }).error, 'quota exceeded');
  });
  it('logprobs: ids only when every token is spelled token_id:N', () => {
    const a = chatResponse({ choices: [{ message: { content: 'ab' }, logprobs: { content: [{ token: 'a', logprob: -1 }, { token: 'token_id:2', logprob: -2 }] } }] });
    assert.deepEqual(a.log_probs, [-1, -2]);
    assert.equal(a.response_ids, null);
    assert.equal(chatResponse({ choices: [{ message: { content: 'a' }, logprobs: { content: [{ token: 'xtoken_id:2', logprob: 0 }] } }] }).response_ids, null);
    assert.equal(chatResponse({ choices: [{ message: { content: 'a' }, logprobs: { content: [{ token: 'token_id:2x', logprob: 0 }] } }] }).response_ids, null);
    assert.equal(chatResponse({ choices: [{ message: { content: 'a' }, logprobs: { content: [] } }] }).log_probs, null);
  });
  it('choiceMessage: message or legacy text (inline <think> split); null when it says nothing', () => {
    assert.equal(choiceMessage({ message: { role: 'user', content: 'x' } })?.role, 'assistant');
    assert.deepEqual(choiceMessage({ text: '<think>hmm</think>Answer' }), { role: 'assistant', content: 'Answer', reasoning: 'hmm' });
    assert.equal(choiceMessage({ message: { role: 'assistant' } }), null);
    assert.equal(choiceMessage({ message: { role: 'assistant', content: null, reasoning_content: 'r' } })?.reasoning, 'r');
    assert.equal(choiceMessage({ message: { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }] } })?.tool_calls?.length, 1);
    assert.equal(choiceMessage({ message: { role: 'assistant', content: null, tool_calls: [] } }), null);
    assert.equal(choiceMessage({ message: { role: 'assistant', content: '' } })?.content, '');
    assert.equal(choiceMessage({ finish_reason: 'stop' }), null);
  });
});

describe('chatAccumulator', () => {
  it('SSE text to a response: id from the first chunk with one, [DONE] ignored, malformed events reported', () => {
    const acc = chatAccumulator();
    const text = 'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {"id":"chatcmpl-Z","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"b"}}]}\n\ndata: {"id":"chatcmpl-Y","choices":[]}\n\ndata:  [DONE] \n\n';
    for (const ev of parseSse(text)) acc.push(ev);
    const a = acc.result();
    assert.deepEqual([a.id, a.message?.content, a.error], ['chatcmpl-Z', 'ab', null]);
    const bad = chatAccumulator();
    for (const ev of parseSse('data: <html>\n\ndata: nope\n\n')) bad.push(ev);
    assert.equal(bad.result().error, 'malformed SSE event from the upstream: <html>');
    assert.equal(bad.result().id, null);
  });
});
