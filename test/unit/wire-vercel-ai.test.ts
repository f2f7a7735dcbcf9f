/**
 * src/wire/vercel-ai.ts on the AI SDK's own shapes: model messages and `response.messages` as the SDK's test
 * snapshots print them (vercel/ai packages/ai/src/generate-text/__snapshots__: v5+ `input` / typed `output`),
 * v4 `args` / `result` / `isError`, the `ai.response.toolCalls` telemetry attribute (v4 `toolCallType` + `args`
 * text; v5 `{toolCallId, toolName, input}`), and `useChat` UI messages (v4 `tool-invocation`, v5 `tool-<name>`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aiSdkFinishReason, aiSdkMessages, aiSdkResponse, aiSdkUsage, isAiSdkMessage, isAiSdkResult, isUiMessage } from '../../src/wire/vercel-ai';

const V5_MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: [{ type: 'text', text: 'What is the weather in San Francisco?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Need the weather tool.' },
      { type: 'tool-call', toolCallId: 'call_Zq5m', toolName: 'weather', input: { location: 'San Francisco' }, providerOptions: { openai: { itemId: 'fc_1' } } },
    ],
  },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_Zq5m', toolName: 'weather', output: { type: 'json', value: { location: 'San Francisco', temperature: 72 } } }] },
];

const V4_MESSAGES = [
  { role: 'user', content: 'Delete the temp dir.' },
  { role: 'assistant', content: [{ type: 'text', text: 'Deleting.' }, { type: 'tool-call', toolCallId: 'call-1', toolName: 'bash', args: { command: 'rm -rf /tmp/x' } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'bash', result: 'permission denied', isError: true }] },
];

describe('AI SDK model messages', () => {
  it('v5: reasoning, a tool-call part with `input`, a typed json output as the tool message', () => {
    assert.deepEqual(aiSdkMessages(V5_MESSAGES), [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'What is the weather in San Francisco?' },
      { role: 'assistant', content: null, reasoning: 'Need the weather tool.', tool_calls: [{ id: 'call_Zq5m', type: 'function', function: { name: 'weather', arguments: '{"location":"San Francisco"}' } }] },
      { role: 'tool', content: '{"location":"San Francisco","temperature":72}', tool_call_id: 'call_Zq5m', name: 'weather' },
    ]);
  });

  it('v4: `args`, `result`, and `isError` as the error flag with the text kept', () => {
    const out = aiSdkMessages(JSON.stringify(V4_MESSAGES));
    assert.deepEqual(out[1].tool_calls?.[0].function, { name: 'bash', arguments: '{"command":"rm -rf /tmp/x"}' });
    assert.deepEqual(out[2], { role: 'tool', content: 'permission denied', tool_call_id: 'call-1', name: 'bash', is_error: true });
  });

  it('v5 typed outputs: error-text is flagged, text is the value, content joins its parts, a denial is an error', () => {
    const results = [
      { type: 'error-text', value: 'ENOENT: no such file' },
      { type: 'text', value: 'result1' },
      { type: 'content', value: [{ type: 'text', text: 'see chart' }, { type: 'media', data: 'iVBOR…', mediaType: 'image/png' }] },
      { type: 'execution-denied', reason: 'user declined' },
    ].map((output, i) => aiSdkMessages([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${i}`, toolName: 't', output }] }])[0]);
    assert.deepEqual(
      results.map((m) => [m.content, m.is_error ?? false]),
      [
        ['ENOENT: no such file', true],
        ['result1', false],
        ['see chart\n[image]', false],
        ['user declined', true],
      ],
    );
  });

  it('UI messages: v5 tool parts carry call and result; text after a result is the next turn; v4 tool-invocation', () => {
    const v5 = aiSdkMessages([
      { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Weather in Oslo?' }] },
      {
        id: 'a1',
        role: 'assistant',
        parts: [
          { type: 'step-start' },
          { type: 'tool-getWeather', toolCallId: 'call_1', state: 'output-available', input: { city: 'Oslo' }, output: { tempC: 3 } },
          { type: 'step-start' },
          { type: 'text', text: 'It is 3°C in Oslo.', state: 'done' },
        ],
      },
    ]);
    assert.deepEqual(
      v5.map((m) => [m.role, m.content, m.tool_calls?.[0]?.function.name ?? null, m.tool_call_id ?? null]),
      [
        ['user', 'Weather in Oslo?', null, null],
        ['assistant', null, 'getWeather', null],
        ['tool', '{"tempC":3}', null, 'call_1'],
        ['assistant', 'It is 3°C in Oslo.', null, null],
      ],
    );
    const v4 = aiSdkMessages([
      {
        id: 'a2',
        role: 'assistant',
        content: 'Done.',
        parts: [{ type: 'tool-invocation', toolInvocation: { state: 'result', toolCallId: 'c9', toolName: 'search', args: { q: 'x' }, result: ['a'] } }, { type: 'text', text: 'Done.' }],
      },
    ]);
    assert.deepEqual(v4.map((m) => [m.role, m.content]), [['assistant', null], ['tool', '["a"]'], ['assistant', 'Done.']]);
    const failed = aiSdkMessages([{ id: 'a3', role: 'assistant', parts: [{ type: 'dynamic-tool', toolName: 'fetch', toolCallId: 'd1', state: 'output-error', input: {}, errorText: 'timeout' }] }]);
    assert.deepEqual(failed[1], { role: 'tool', content: 'timeout', tool_call_id: 'd1', name: 'fetch', is_error: true });
  });

  it('shapes: SDK messages and UI messages are told from OpenAI / Anthropic ones', () => {
    assert.ok(isAiSdkMessage(V5_MESSAGES[2]));
    assert.ok(isAiSdkMessage(V4_MESSAGES[2]));
    assert.equal(isAiSdkMessage({ role: 'user', content: [{ type: 'text', text: 'x' }] }), false);
    assert.equal(isAiSdkMessage({ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'x', input: {} }] }), false);
    assert.ok(isUiMessage({ id: 'x', role: 'user', parts: [{ type: 'text', text: 'hi' }] }));
    assert.equal(isUiMessage({ role: 'user', parts: [{ text: 'hi' }] }), false, "Gemini parts have no type");
  });
});

describe('AI SDK results and telemetry outputs', () => {
  it("`ai.response.toolCalls` text (v4: toolCallType + args as JSON text) is the response's tool calls", () => {
    const r = aiSdkResponse('[{"toolCallType":"function","toolCallId":"call_bS2x","toolName":"getWeather","args":"{\\"city\\":\\"Berlin\\"}"}]');
    assert.deepEqual(r.message, { role: 'assistant', content: null, tool_calls: [{ id: 'call_bS2x', type: 'function', function: { name: 'getWeather', arguments: '{"city":"Berlin"}' } }] });
    assert.equal(r.finish_reason, 'tool_calls');
  });

  it("Langfuse's {role, content, tool_calls} of text plus SDK calls (JSON text) keeps both", () => {
    const r = aiSdkResponse({ role: 'assistant', content: 'Checking.', tool_calls: '[{"toolCallId":"c1","toolName":"search","input":{"q":"duckdb"}}]' });
    assert.deepEqual(r.message, { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"duckdb"}' } }] });
  });

  it('a generateText result: text, reasoningText, finishReason, usage (v4 and v5 names), response id and model', () => {
    const v5 = aiSdkResponse({
      text: 'Hello, world!',
      reasoningText: 'Greet.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { inputTokens: 3, outputTokens: 10, totalTokens: 13 },
      response: { id: 'test-id-2-from-model', modelId: 'test-response-model-id', messages: [{ role: 'assistant', content: [{ type: 'text', text: 'Hello, world!' }] }] },
    });
    assert.deepEqual(v5.message, { role: 'assistant', content: 'Hello, world!', reasoning: 'Greet.' });
    assert.deepEqual([v5.finish_reason, v5.prompt_tokens, v5.completion_tokens, v5.id, v5.model], ['stop', 3, 10, 'test-id-2-from-model', 'test-response-model-id']);
    assert.deepEqual(aiSdkUsage({ promptTokens: 7, completionTokens: 2 }), { prompt: 7, completion: 2 });
    const calls = aiSdkResponse({ text: '', toolCalls: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'tool1', input: { value: 'value' } }], finishReason: 'tool-calls' });
    assert.deepEqual([calls.message?.content, calls.message?.tool_calls?.[0].function.arguments, calls.finish_reason], [null, '{"value":"value"}', 'tool_calls']);
    assert.ok(isAiSdkResult({ text: '', toolCalls: [], finishReason: 'stop' }));
    assert.equal(isAiSdkResult({ choices: [] }), false);
  });

  it('response.messages alone: the last assistant message; a v5 `content` list; finish reasons spelled the OpenAI way', () => {
    const r = aiSdkResponse({ finishReason: 'stop', response: { messages: V5_MESSAGES.slice(2) } });
    assert.equal(r.message?.tool_calls?.[0].id, 'call_Zq5m');
    const c = aiSdkResponse({ content: [{ type: 'text', text: 'Hi' }], finishReason: 'length' });
    assert.deepEqual([c.message?.content, c.finish_reason], ['Hi', 'length']);
    assert.deepEqual(['tool-calls', 'content-filter', 'unknown', 'other', null].map(aiSdkFinishReason), ['tool_calls', 'content_filter', null, 'other', null]);
    assert.equal(aiSdkResponse('').message, null, 'an empty text is no response');
  });
});
