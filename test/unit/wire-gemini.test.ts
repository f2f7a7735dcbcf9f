/**
 * src/wire/gemini.ts on the shapes Gemini traces hold. The REST / JS shape (camelCase) follows the public
 * `generateContent` reference (candidates[].content.parts, thought parts, thoughtSignature, usageMetadata with
 * thoughtsTokenCount); the snake_case shape is what Google ADK writes into `gcp.vertex.agent.llm_request` /
 * `llm_response` (google/adk-python src/google/adk/telemetry/tracing.py: `model_dump(exclude_none=True)`).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geminiContent, geminiFinishReason, geminiMessages, geminiRequest, geminiResponse, geminiUsage, isGeminiRequest, isGeminiResponse } from '../../src/wire/gemini';

const REST_RESPONSE = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { text: 'The user wants the weather; I should call the tool.', thought: true },
          { functionCall: { name: 'get_weather', args: { city: 'Lisbon', unit: 'celsius' } }, thoughtSignature: 'CiQB0e2Kb7…' },
        ],
      },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 112, candidatesTokenCount: 18, thoughtsTokenCount: 64, totalTokenCount: 194 },
  modelVersion: 'gemini-2.5-flash',
  responseId: 'Il0taoSYJ5Cez7IPzsu4wQ0',
};

const ADK_REQUEST = {
  model: 'gemini-2.0-flash',
  config: {
    system_instruction: 'You are a weather agent. Use get_weather for every city.',
    tools: [{ function_declarations: [{ name: 'get_weather', description: 'Weather of a city.', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } }, required: ['city'] } }] }],
  },
  contents: [
    { parts: [{ text: 'What is the weather in Lisbon?' }], role: 'user' },
    { parts: [{ function_call: { id: 'adk-6c1f0b1e-2a7d-4b0e-9f3a-1d2c3b4a5e6f', args: { city: 'Lisbon' }, name: 'get_weather' } }], role: 'model' },
    { parts: [{ function_response: { id: 'adk-6c1f0b1e-2a7d-4b0e-9f3a-1d2c3b4a5e6f', name: 'get_weather', response: { result: 'Sunny, 24°C' } } }], role: 'user' },
  ],
};

const ADK_RESPONSE = {
  content: { parts: [{ text: 'It is sunny in Lisbon, 24°C.' }], role: 'model' },
  finish_reason: 'STOP',
  usage_metadata: { candidates_token_count: 11, prompt_token_count: 151, total_token_count: 162 },
};

describe('Gemini responses', () => {
  it('REST camelCase: thought parts are reasoning, a functionCall a tool call, STOP with calls is tool_calls, thinking tokens count as output', () => {
    const r = geminiResponse(REST_RESPONSE);
    assert.deepEqual(r.message, {
      role: 'assistant',
      content: null,
      reasoning: 'The user wants the weather; I should call the tool.',
      tool_calls: [{ id: null, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon","unit":"celsius"}' } }],
    });
    assert.equal(r.finish_reason, 'tool_calls');
    assert.deepEqual([r.prompt_tokens, r.completion_tokens, r.model, r.id], [112, 82, 'gemini-2.5-flash', 'Il0taoSYJ5Cez7IPzsu4wQ0']);
  });

  it("ADK's snake_case LlmResponse (content at the top) reads the same way", () => {
    const r = geminiResponse(JSON.stringify(ADK_RESPONSE));
    assert.deepEqual(r.message, { role: 'assistant', content: 'It is sunny in Lisbon, 24°C.' });
    assert.deepEqual([r.finish_reason, r.prompt_tokens, r.completion_tokens], ['stop', 151, 11]);
  });

  it('errors: ADK error_code / error_message, a blocked prompt; finish reasons by their meaning', () => {
    const e = geminiResponse({ error_code: 'RESOURCE_EXHAUSTED', error_message: 'Quota exceeded for gemini-2.0-flash' });
    assert.deepEqual([e.message, e.error, e.finish_reason], [null, 'Quota exceeded for gemini-2.0-flash', 'error']);
    const blocked = geminiResponse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 9 } });
    assert.deepEqual([blocked.message, blocked.error, blocked.prompt_tokens], [null, 'prompt blocked: SAFETY', 9]);
    assert.deepEqual(
      ['MAX_TOKENS', 'SAFETY', 'RECITATION', 'MALFORMED_FUNCTION_CALL', 'stop', 'OTHER', 'FINISH_REASON_UNSPECIFIED', null].map((f) => geminiFinishReason(f)),
      ['length', 'content_filter', 'content_filter', 'error', 'stop', 'other', null, null],
    );
    assert.deepEqual(geminiUsage({ prompt_token_count: 5 }), { prompt: 5, completion: null });
  });
});

describe('Gemini requests', () => {
  it("ADK's llm_request: system instruction, user turn, the model's call, the function response tied to it by id; tools in the OpenAI shape", () => {
    const req = geminiRequest(JSON.stringify(ADK_REQUEST));
    assert.equal(req.model, 'gemini-2.0-flash');
    assert.deepEqual(req.messages, [
      { role: 'system', content: 'You are a weather agent. Use get_weather for every city.' },
      { role: 'user', content: 'What is the weather in Lisbon?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'adk-6c1f0b1e-2a7d-4b0e-9f3a-1d2c3b4a5e6f', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lisbon"}' } }] },
      { role: 'tool', content: '{"result":"Sunny, 24°C"}', tool_call_id: 'adk-6c1f0b1e-2a7d-4b0e-9f3a-1d2c3b4a5e6f', name: 'get_weather' },
    ]);
    const tools = JSON.parse(req.tools ?? 'null');
    assert.equal(tools[0].type, 'function');
    assert.equal(tools[0].function.name, 'get_weather');
    assert.deepEqual(tools[0].function.parameters, { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, "Gemini's upper-case Schema types as JSON Schema's");
    assert.ok(req.tools_original?.includes('function_declarations'));
  });

  it('REST camelCase: systemInstruction as a Content, functionResponse without ids answers the open call of its name', () => {
    const msgs = geminiMessages(
      [
        { role: 'user', parts: [{ text: 'Compare Lisbon and Oslo.' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Lisbon' } } }, { functionCall: { name: 'get_time', args: { city: 'Oslo' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_time', response: { output: '14:02' } } }, { functionResponse: { name: 'get_weather', response: { output: 'Sunny' } } }] },
      ],
      { parts: [{ text: 'Be brief.' }] },
    );
    assert.deepEqual(
      msgs.map((m) => [m.role, m.content, m.tool_call_id ?? null, m.name ?? null]),
      [
        ['system', 'Be brief.', null, null],
        ['user', 'Compare Lisbon and Oslo.', null, null],
        ['assistant', null, null, null],
        ['tool', '{"output":"14:02"}', null, 'get_time'],
        ['tool', '{"output":"Sunny"}', null, 'get_weather'],
      ],
    );
  });

  it('a response without id takes the id of the call it answers; media parts are markers with the parts kept', () => {
    const open = { calls: [] };
    geminiContent({ role: 'model', parts: [{ functionCall: { id: 'call-1', name: 'read_file', args: { path: 'a.txt' } } }] }, 'user', open);
    const [tool] = geminiContent({ role: 'function', parts: [{ functionResponse: { name: 'read_file', response: { content: 'hello' } } }] }, 'user', open);
    assert.deepEqual([tool.role, tool.tool_call_id], ['tool', 'call-1']);
    assert.equal(open.calls.length, 0);
    geminiContent({ role: 'model', parts: [{ functionCall: { id: 'call-2', name: 'search', args: {} } }] }, 'user', open);
    const [nameless] = geminiContent({ role: 'user', parts: [{ functionResponse: { response: { output: 'none' } } }] }, 'user', open);
    assert.equal(nameless.tool_call_id, 'call-2', 'a response that names no call answers the only open one');
    const [img] = geminiContent({ role: 'user', parts: [{ text: 'What is this? ' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0…' } }] });
    assert.equal(img.content, 'What is this? [image]');
    assert.ok(img.parts?.includes('inline_data'));
  });

  it('shapes: a Gemini request or response is told from OpenAI and Anthropic values', () => {
    assert.ok(isGeminiRequest(ADK_REQUEST));
    assert.ok(isGeminiResponse(REST_RESPONSE));
    assert.ok(isGeminiResponse(ADK_RESPONSE));
    assert.equal(isGeminiRequest({ messages: [{ role: 'user', content: 'hi' }] }), false);
    assert.equal(isGeminiResponse({ choices: [{ message: { role: 'assistant', content: 'x' } }] }), false);
    assert.equal(isGeminiResponse({ type: 'message', role: 'assistant', content: [{ type: 'text', text: 'x' }] }), false);
  });
});

describe('recorded Gemini calls', () => {
  const url = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse';
  const req = { contents: [{ role: 'user', parts: [{ text: 'Weather in Lisbon?' }] }], tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } }] }] };
  const chunks = [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Let me check', thought: true }] } }], modelVersion: 'gemini-2.5-flash', responseId: 'r-1' },
    { candidates: [{ content: { role: 'model', parts: [{ text: ' the tool.', thought: true }] } }], modelVersion: 'gemini-2.5-flash', responseId: 'r-1' },
    { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Lisbon' } } }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 8, thoughtsTokenCount: 12 }, modelVersion: 'gemini-2.5-flash', responseId: 'r-1' },
  ];
  const sse = chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('');

  it('a HAR entry with an alt=sse stream: chunks joined, the call read by the Gemini module, the model from the response', async () => {
    const { har } = await import('../../src/ingest/normalizers/har');
    const { runOne } = await import('./helpers/formats');
    const s = runOne(har, {
      log: {
        entries: [
          {
            startedDateTime: '2025-09-01T10:00:00.000Z',
            time: 1200,
            request: { method: 'POST', url, headers: [], postData: { mimeType: 'application/json', text: JSON.stringify(req) } },
            response: { status: 200, statusText: 'OK', headers: [], content: { mimeType: 'text/event-stream', text: sse } },
            timings: { wait: 300 },
          },
        ],
      },
    });
    assert.deepEqual([s.provider, s.model, s.finish_reason, s.prompt_tokens, s.completion_tokens], ['google', 'gemini-2.5-flash', 'tool_calls', 30, 20]);
    assert.deepEqual([s.response?.reasoning, s.response?.tool_calls?.[0].function.arguments], ['Let me check the tool.', '{"city":"Lisbon"}']);
    assert.equal(s.messages[0].content, 'Weather in Lisbon?');
    assert.equal(JSON.parse(s.tools ?? '[]')[0].function.parameters.properties.city.type, 'string');
  });

  it('a VCR cassette of the JSON-array stream (no alt=sse) and of a plain generateContent; the model from the URL when the body has none', async () => {
    const { vcr } = await import('../../src/ingest/normalizers/vcr');
    const { runOne } = await import('./helpers/formats');
    const cassette = (uri: string, body: unknown) => ({
      interactions: [{ request: { method: 'POST', uri, body: JSON.stringify(req), headers: {} }, response: { status: { code: 200, message: 'OK' }, headers: {}, body: { string: JSON.stringify(body) } } }],
      version: 1,
    });
    const a = runOne(vcr, cassette(url.replace('?alt=sse', ''), chunks));
    assert.equal(a.response?.tool_calls?.[0].function.name, 'get_weather');
    const b = runOne(vcr, cassette('https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash-001:generateContent', { candidates: [{ content: { role: 'model', parts: [{ text: 'Sunny.' }] }, finishReason: 'STOP' }] }));
    assert.deepEqual([b.response?.content, b.model, b.finish_reason], ['Sunny.', 'gemini-2.0-flash-001', 'stop']);
  });
});
