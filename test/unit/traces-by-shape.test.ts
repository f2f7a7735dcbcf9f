/**
 * Trace exports read a generation's input and output by the provider shape they hold (src/wire/shapes.ts),
 * not by the framework that wrote them (issue 32 item 1). The fixtures are in the shapes those frameworks'
 * instrumentations write (test/fixtures/formats-sources.md says where each comes from): the OpenAI Agents SDK
 * through OpenInference into Langfuse (a Responses input list, the whole Response object as output), the
 * Vercel AI SDK's telemetry (Langfuse and OTLP), Google ADK's `llm_request` / `llm_response` (Langfuse and
 * OTLP), LangGraph through Langfuse's v2 LangChain handler (`additional_kwargs.tool_calls`, tool results
 * without their call's id). What each test checks failed on the readers before this change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { langfuse } from '../../src/ingest/normalizers/langfuse';
import { otel } from '../../src/ingest/normalizers/otel';
import { phoenix } from '../../src/ingest/normalizers/phoenix';
import { callByShape, isRequestSettings, requestByShape, responseByShape } from '../../src/wire/shapes';
import { runFixture, runOne } from './helpers/formats';

const calls = (s: StepRecord | undefined) => s?.response?.tool_calls?.map((c) => `${c.id}:${c.function.name}:${c.function.arguments}`) ?? [];
const roles = (s: StepRecord) => s.messages.map((m) => m.role);

describe('trace exports read by shape', () => {
  it("OpenAI Agents SDK → Langfuse: the Response object's output is the answer, not its request settings; the input items are the context", () => {
    const [a, b] = runFixture(langfuse, 'langfuse-openai-agents.json');
    assert.deepEqual(calls(a), ['call_XWl9bZ4DSq1YprTTnKfB0Hhm:get_weather:{"city":"Tokyo"}']);
    assert.equal(a.response?.content, null);
    assert.equal(a.finish_reason, 'tool_calls');
    assert.equal(b.response?.content, "It's sunny in Tokyo right now, around 24°C.");
    assert.equal(b.finish_reason, 'stop');
    assert.deepEqual(roles(b), ['system', 'user', 'assistant', 'tool'], 'instructions from the Response, function_call and its output as turns');
    assert.equal(b.messages[3].tool_call_id, 'call_XWl9bZ4DSq1YprTTnKfB0Hhm');
    assert.equal(JSON.parse(b.tools ?? '[]')[0].function.name, 'get_weather', "the Response's flat tools in the chat shape");
    for (const s of [a, b]) assert.ok(!JSON.stringify(s.response).includes('"format"'), 'no request setting in a response');
  });

  it('Vercel AI SDK → Langfuse: the tool calls of a generation (text + SDK calls as JSON text) and the tool results in the next one', () => {
    const [a, b] = runFixture(langfuse, 'langfuse-ai-sdk.jsonl');
    assert.deepEqual(calls(a), ['call_kP3vQ1:weather:{"location":"Paris"}', 'call_m8Zr2T:weather:{"location":"Rome"}']);
    assert.equal(a.finish_reason, 'tool_calls');
    assert.deepEqual(roles(b), ['system', 'user', 'assistant', 'tool', 'tool']);
    assert.deepEqual(b.messages.slice(3).map((m) => [m.tool_call_id, JSON.parse(m.content ?? 'null').conditions]), [['call_kP3vQ1', 'rain'], ['call_m8Zr2T', 'sunny']]);
    assert.equal(b.finish_reason, 'stop', "from the span's ai.response.finishReason kept in the observation's metadata");
    assert.equal(JSON.parse(a.tools ?? '[]')[0].function.parameters.required[0], 'location', 'ai.prompt.tools, inputSchema as parameters');
  });

  it('Google ADK → Langfuse: Gemini contents and the LlmResponse (snake_case) with the function call', () => {
    const [a, b] = runFixture(langfuse, 'langfuse-google-adk.json');
    assert.deepEqual(calls(a), ['adk-0f5ce3d4-6b2a-4b8e-9c1d-2e3f4a5b6c7d:get_weather:{"city":"New York"}']);
    assert.equal(a.finish_reason, 'tool_calls');
    assert.deepEqual(roles(b), ['system', 'user', 'assistant', 'tool']);
    assert.equal(b.messages[3].tool_call_id, 'adk-0f5ce3d4-6b2a-4b8e-9c1d-2e3f4a5b6c7d');
    assert.match(b.response?.content ?? '', /^The weather in New York is sunny/);
    assert.equal(JSON.parse(a.tools ?? '[]').length, 2);
  });

  it('LangGraph → Langfuse (v2 handler): calls in additional_kwargs.tool_calls; the tool message without id answers the open call; its JSON-looking text stays text', () => {
    const [a, b] = runFixture(langfuse, 'langfuse-langgraph.json');
    assert.deepEqual(calls(a), ['call_Jja7J89XsjrOLA5r4Mb1Yz6d:tavily_search_results_json:{"query":"weather in San Francisco"}']);
    assert.deepEqual(roles(b), ['system', 'user', 'assistant', 'tool']);
    assert.equal(b.messages[2].tool_calls?.length, 1);
    assert.equal(b.messages[3].tool_call_id, 'call_Jja7J89XsjrOLA5r4Mb1Yz6d');
    assert.match(b.messages[3].content ?? '', /^\[\{"url": "https:\/\/www\.weatherapi\.com\/"/);
  });

  it('OTLP: the AI SDK doGenerate spans (ai.prompt.messages, ai.response.*) and ADK call_llm spans carry their content', () => {
    const [a, b] = runFixture(otel, 'otlp-ai-sdk.json');
    assert.deepEqual([a.response?.content, a.response?.reasoning, a.finish_reason], ['Let me read the file.', 'I need to see the file first.', 'tool_calls']);
    assert.deepEqual(calls(a), ['toolu_01HkXq9fY3mWZ2pR8sT4vB6n:readFile:{"path":"src/math.ts"}']);
    assert.deepEqual(roles(b), ['system', 'user', 'assistant', 'tool']);
    const [g, h] = runFixture(otel, 'otlp-google-adk.json');
    assert.equal(g.finish_reason, 'tool_calls', "ADK's lower-cased STOP with a function call");
    assert.equal(g.provider, 'google', 'gcp.vertex.agent names the framework; the model names the provider');
    assert.deepEqual(roles(h), ['system', 'user', 'assistant', 'tool']);
  });

  it("Phoenix: an LLM span with only input.value / output.value (a Responses request and Response) is read by their shape", () => {
    const s = runOne(phoenix, {
      name: 'response',
      span_kind: 'LLM',
      context: { trace_id: 't-1', span_id: 's-1' },
      start_time: '2025-09-01T10:00:00Z',
      end_time: '2025-09-01T10:00:01Z',
      attributes: {
        'openinference.span.kind': 'LLM',
        'input.value': JSON.stringify([{ role: 'user', content: 'Hi' }]),
        'output.value': JSON.stringify({ id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-4.1', instructions: 'Be kind.', text: { format: { type: 'text' } }, reasoning: { effort: null }, output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hello!' }] }], usage: { input_tokens: 9, output_tokens: 2 } }),
      },
    });
    assert.deepEqual([s.response?.content, s.finish_reason, s.model, s.prompt_tokens], ['Hello!', 'stop', 'gpt-4.1', 9]);
    assert.deepEqual(roles(s), ['system', 'user']);
  });
});

describe('shapes', () => {
  it("a request's settings are never a response; a structured answer is its JSON text", () => {
    assert.equal(isRequestSettings({ text: { format: { type: 'text' } }, reasoning: { effort: null, summary: null }, temperature: 1 }), true);
    assert.equal(responseByShape({ text: { format: { type: 'json_schema', name: 'x', schema: {} } }, temperature: 0.2 }).message, null);
    assert.equal(responseByShape({ text: 'Hi there' }).message?.content, 'Hi there', 'text as a string is an answer');
    assert.equal(responseByShape({ answer: 42, unit: 'km' }).message?.content, '{"answer":42,"unit":"km"}');
  });

  it('a string answer keeps its quotes; a string input is the user text even when it reads as JSON', () => {
    assert.equal(responseByShape('"yes"').message?.content, '"yes"');
    assert.deepEqual(requestByShape('{"city": "Oslo"}').messages, [{ role: 'user', content: '{"city": "Oslo"}' }]);
  });

  it('tool results without an id answer the open calls in order; results with ids keep theirs', () => {
    const { request } = callByShape(
      [
        { role: 'user', content: 'two things' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: '{}' } }, { id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }] },
        { role: 'tool', content: 'for b', tool_call_id: 'b' },
        { role: 'tool', content: 'for a' },
        { role: 'function', name: 'h', content: 'no call open' },
      ],
      null,
    );
    assert.deepEqual(request.messages.slice(2).map((m) => [m.content, m.tool_call_id ?? null]), [['for b', 'b'], ['for a', 'a'], ['no call open', null]]);
  });

  it("tool definitions appended to the input as tool messages (Langfuse's v3 LangChain handler) are tools, not results", () => {
    const req = requestByShape([
      { role: 'user', content: 'weather?' },
      { role: 'tool', content: { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} } } } },
    ]);
    assert.deepEqual(req.messages, [{ role: 'user', content: 'weather?' }]);
    assert.equal(JSON.parse(req.tools ?? '[]')[0].function.name, 'get_weather');
  });

  it('each provider shape is told apart: chat, Responses, Anthropic, Gemini, AI SDK, LangChain', () => {
    const shapes = [
      { choices: [{ message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }] },
      { object: 'response', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] }] },
      { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'x' }], stop_reason: 'end_turn' },
      { candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'STOP' }] },
      { text: 'x', toolCalls: [], finishReason: 'stop' },
      { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'AIMessage'], kwargs: { content: 'x', type: 'ai' } },
    ].map((v) => responseByShape(v));
    assert.deepEqual(
      shapes.map((r) => [r.shape, r.message?.content, r.finish_reason]),
      [
        ['openai-chat', 'x', 'stop'],
        ['openai-responses', 'x', 'stop'],
        ['anthropic', 'x', 'stop'],
        ['gemini', 'x', 'stop'],
        ['ai-sdk', 'x', 'stop'],
        ['langchain', 'x', null],
      ],
    );
  });
});
