/**
 * Differential test (issue 14 item 1, issue 16 defect 9): the same Anthropic Messages call captured by
 * the gateway, imported from a HAR and imported from a request/response log must give the same step.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { streamAccumulator as streamAssembler, wireResponse as assembleJson } from '../../src/wire';
import { wireRequest as summarizeRequest } from '../../src/wire';
import { SseParser } from '../../src/wire/sse';
import { callToStep } from '../../src/gateway/core/to-step';
import { STOP_REASON, anthropicFinishReason } from '../../src/wire/anthropic';
import { anthropic } from '../../src/ingest/normalizers/anthropic';
import { har } from '../../src/ingest/normalizers/har';
import type { StepRecord } from '../../src/contract/step';
import { runOne as run } from './helpers/formats';
import { importBytes } from './helpers/real-read';

interface Call {
  request: Record<string, unknown>;
  response: unknown;
  content_type: string;
}
const { calls } = JSON.parse(readFileSync(new URL('../fixtures/formats/anthropic-same-call.json', import.meta.url), 'utf8')) as { calls: Call[] };

function viaGateway(c: Call): StepRecord {
  const summary = summarizeRequest('messages', c.request);
  let assembled: ReturnType<typeof assembleJson>;
  if (typeof c.response === 'string') {
    const asm = streamAssembler('messages');
    const p = new SseParser();
    for (const e of [...p.push(c.response), ...p.end()]) asm.push(e);
    assembled = asm.result();
  } else assembled = assembleJson('messages', c.response);
  return callToStep({
    trajectory_uid: 't',
    prompt_uid: 'p',
    step_index: 0,
    api: 'messages',
    provider: 'anthropic',
    upstream: 'anthropic',
    stream: summary.stream,
    model: summary.model,
    messages: summary.messages,
    tools: summary.tools,
    request: c.request,
    responseBody: c.response,
    assembled,
    http_status: 200,
    error: null,
    aborted: false,
    started_at: 0,
    ended_at: 1,
    latency_ms: 1,
    ttft_ms: null,
    state: null,
  });
}

function viaHar(c: Call): StepRecord {
  const entry = {
    startedDateTime: '2026-12-02T09:15:00.100Z',
    time: 900,
    request: { method: 'POST', url: 'https://api.anthropic.com/v1/messages', headers: [{ name: 'content-type', value: 'application/json' }], postData: { mimeType: 'application/json', text: JSON.stringify(c.request) } },
    response: { status: 200, statusText: 'OK', headers: [{ name: 'content-type', value: c.content_type }], content: { mimeType: c.content_type, text: typeof c.response === 'string' ? c.response : JSON.stringify(c.response) } },
    timings: { wait: 400 },
  };
  return run(har, { log: { version: '1.2', entries: [entry] } });
}

function viaLog(c: Call): StepRecord {
  return run(anthropic, { request: c.request, response: c.response });
}

/** The fields that describe the call itself (not where or when it was recorded). */
function content(s: StepRecord) {
  return {
    messages: s.messages,
    tools: s.tools,
    response: s.response,
    response_text: s.response_text,
    finish_reason: s.finish_reason,
    prompt_tokens: s.prompt_tokens,
    completion_tokens: s.completion_tokens,
    model: s.model,
    provider: s.provider,
    status: s.status,
  };
}

describe('one Anthropic call through gateway, HAR and log', () => {
  for (const [i, c] of calls.entries()) {
    it(`gives identical steps (${typeof c.response === 'string' ? 'stream' : 'JSON'} response)`, () => {
      const g = content(viaGateway(c));
      assert.deepEqual(content(viaHar(c)), g, 'HAR import = gateway capture');
      assert.deepEqual(content(viaLog(c)), g, 'log import = gateway capture');
      if (i === 0) {
        assert.equal(g.finish_reason, 'tool_calls');
        assert.equal(g.response?.reasoning, 'February 29 is built with the wrong year; look at parse_date.');
        assert.deepEqual(g.response?.tool_calls?.[0].function, { name: 'bash', arguments: '{"command":"sed -n 1,40p src/dates.py"}' });
        const tool = g.messages.find((m) => m.role === 'tool');
        assert.match(tool?.content ?? '', /^FAILED/, 'the tool result text as written');
        assert.equal(tool?.is_error, true, 'is_error kept on the tool result');
        assert.ok(tool?.parts?.includes('"is_error":true'));
        assert.equal(g.prompt_tokens, 388 + 1536);
      } else {
        assert.equal(g.finish_reason, 'stop', 'pause_turn maps to stop on every path');
        assert.equal(g.response?.tool_calls?.[0].function.name, 'web_search');
      }
      const tools = JSON.parse(g.tools ?? '[]');
      assert.deepEqual(tools[0], { type: 'function', function: { name: 'bash', description: 'Run a shell command in the repository.', parameters: c.request.tools && (c.request.tools as { input_schema: unknown }[])[0].input_schema } });
      assert.equal(tools[1].type, 'web_search_20250305', 'a server tool without a schema stays as it is');
    });
  }

  it('keeps the original Anthropic tool list on the import paths', () => {
    for (const s of [viaHar(calls[0]), viaLog(calls[0])]) assert.ok(JSON.parse(s.metadata?.tools_original ?? '[]')[0].input_schema);
  });

  it('maps every documented stop reason through one table', () => {
    const expected: Record<string, string> = { end_turn: 'stop', stop_sequence: 'stop', pause_turn: 'stop', max_tokens: 'length', tool_use: 'tool_calls', refusal: 'content_filter', model_context_window_exceeded: 'length' };
    for (const [k, v] of Object.entries(expected)) assert.equal(anthropicFinishReason(k), v, k);
    assert.deepEqual(Object.keys(STOP_REASON).sort(), Object.keys(expected).sort());
    assert.equal(anthropicFinishReason('something_new'), 'something_new');
    assert.equal(anthropicFinishReason(null), null);
  });
});

describe('Anthropic tool definitions on the tracing paths', () => {
  it('Phoenix (OpenInference) spans: llm.tools json_schema in Anthropic shape → OpenAI shape, original kept', async () => {
    const span = {
      name: 'Anthropic.messages',
      context: { trace_id: '6c3fa8e0b1d24a11b1f0c0ffee0000aa', span_id: 'sp-t' },
      span_kind: 'LLM',
      parent_id: null,
      start_time: '2026-11-29T17:00:00+00:00',
      end_time: '2026-11-29T17:00:02+00:00',
      status_code: 'OK',
      status_message: '',
      events: [],
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'claude-sonnet-4-5',
        'llm.provider': 'anthropic',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'Weather in Oslo?',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'Checking.',
        'llm.tools.0.tool.json_schema': JSON.stringify(calls[0].request.tools && (calls[0].request.tools as unknown[])[0]),
      },
    };
    const { format, steps } = await importBytes(new TextEncoder().encode(`${JSON.stringify(span)}\n`));
    assert.equal(format, 'phoenix');
    assert.equal(JSON.parse(steps[0].tools ?? '[]')[0].function.name, 'bash');
    assert.ok(JSON.parse(steps[0].metadata?.tools_original ?? '[]')[0].input_schema);
  });
});

describe('inline <think> through the gateway (stream and JSON) and the HAR path', () => {
  it('gives the same response message on every path', () => {
    const text = '<think>\n2+2 is 4.\n</think>\n\nIt is 4.';
    const json = { id: 'c1', object: 'chat.completion', model: 'Qwen/Qwen3-8B', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] };
    const chunks = [text.slice(0, 9), text.slice(9, 20), text.slice(20)].map((c, i) => ({ id: 'c1', object: 'chat.completion.chunk', model: 'Qwen/Qwen3-8B', choices: [{ index: 0, delta: i ? { content: c } : { role: 'assistant', content: c }, finish_reason: i === 2 ? 'stop' : null }] }));
    const sse = `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
    const asm = streamAssembler('chat');
    const p = new SseParser();
    for (const e of [...p.push(sse), ...p.end()]) asm.push(e);
    const want = { role: 'assistant', content: 'It is 4.', reasoning: '2+2 is 4.' };
    assert.deepEqual(asm.result().message, want, 'gateway stream');
    assert.deepEqual(assembleJson('chat', json).message, want, 'gateway JSON');
    const request = { model: 'Qwen/Qwen3-8B', messages: [{ role: 'user', content: 'What is 2+2?' }] };
    for (const body of [JSON.stringify(json), sse]) {
      const entry = { request: { method: 'POST', url: 'http://localhost:8000/v1/chat/completions', headers: [], postData: { text: JSON.stringify(request) } }, response: { status: 200, headers: [], content: { text: body } } };
      assert.deepEqual(run(har, { log: { entries: [entry] } }).response, want, 'HAR');
    }
  });
});
