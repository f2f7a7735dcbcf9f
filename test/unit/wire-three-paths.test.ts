/**
 * Differential test (issue 14 item 1, decision 019): the same call, for each provider API, JSON and
 * streamed, captured by the gateway (request → wire, bytes → tee → accumulator → to-step), imported
 * from a HAR, and imported from a request/response log, must give the same step. The fixtures are in
 * the shapes the public APIs emit (test/fixtures/formats/wire-same-call.json).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { StepRecord } from '../../src/contract/step';
import { Tee } from '../../src/gateway/core/tee';
import { callToStep } from '../../src/gateway/core/to-step';
import type { Normalizer } from '../../src/ingest/normalizer';
import { anthropic } from '../../src/ingest/normalizers/anthropic';
import { har } from '../../src/ingest/normalizers/har';
import { openaiLog } from '../../src/ingest/normalizers/openai-log';
import { openaiResponses } from '../../src/ingest/normalizers/openai-responses';
import { type GatewayApi, wireRequest as summarizeRequest } from '../../src/wire';
import { runOne as run } from './helpers/formats';

type Api = GatewayApi;
interface Call {
  api: Api;
  request: Record<string, unknown>;
  response: unknown;
  content_type: string;
}
const { calls } = JSON.parse(readFileSync(new URL('../fixtures/formats/wire-same-call.json', import.meta.url), 'utf8')) as { calls: Call[] };
const URLS: Record<Api, string> = { chat: 'https://api.example.com/v1/chat/completions', responses: 'https://api.openai.com/v1/responses', messages: 'https://api.anthropic.com/v1/messages' };
const LOGS: Record<Api, Normalizer<unknown>> = { chat: openaiLog as Normalizer<unknown>, responses: openaiResponses as Normalizer<unknown>, messages: anthropic as Normalizer<unknown> };

/** The response bytes as the network delivers them: `size`-byte pieces, so multi-byte characters split across chunks. */
function viaGateway(c: Call, size = 3): StepRecord {
  const summary = summarizeRequest(c.api, c.request);
  const text = typeof c.response === 'string' ? c.response : JSON.stringify(c.response);
  const bytes = new TextEncoder().encode(text);
  const tee = new Tee(c.api, c.content_type.includes('event-stream'));
  for (let i = 0; i < bytes.length; i += size) tee.push(bytes.slice(i, i + size));
  const assembled = tee.result();
  return callToStep({
    trajectory_uid: 't', prompt_uid: 'p', step_index: 0, api: c.api, provider: c.api === 'messages' ? 'anthropic' : 'openai', upstream: 'u',
    stream: summary.stream, model: summary.model, messages: summary.messages, tools: summary.tools, request: c.request, responseBody: tee.body(),
    assembled, http_status: 200, error: assembled.error, aborted: false, started_at: 0, ended_at: 1, latency_ms: 1, ttft_ms: null, state: null,
  });
}

function viaHar(c: Call): StepRecord {
  const entry = {
    startedDateTime: '2026-12-02T09:15:00.100Z',
    time: 900,
    request: { method: 'POST', url: URLS[c.api], headers: [{ name: 'content-type', value: 'application/json' }], postData: { mimeType: 'application/json', text: JSON.stringify(c.request) } },
    response: { status: 200, statusText: 'OK', headers: [{ name: 'content-type', value: c.content_type }], content: { mimeType: c.content_type, text: typeof c.response === 'string' ? c.response : JSON.stringify(c.response) } },
    timings: { wait: 400 },
  };
  return run(har, { log: { version: '1.2', entries: [entry] } });
}

function viaLog(c: Call): StepRecord {
  return run(LOGS[c.api], { request: c.request, response: c.response });
}

/** The fields that describe the call itself (not where or when it was recorded). */
function content(s: StepRecord) {
  const { messages, tools, response, response_text, finish_reason, prompt_tokens, completion_tokens, model, provider, status } = s;
  return { messages, tools, response, response_text, finish_reason, prompt_tokens, completion_tokens, model, provider, status };
}

const label = (c: Call) => `${c.api} ${typeof c.response === 'string' ? 'stream' : 'JSON'}`;

describe('one call through gateway capture, HAR import and log import', () => {
  for (const c of calls) {
    it(`gives identical steps (${label(c)}: ${c.request.model})`, () => {
      const g = content(viaGateway(c));
      assert.deepEqual(content(viaHar(c)), g, 'HAR import = gateway capture');
      assert.deepEqual(content(viaLog(c)), g, 'log import = gateway capture');
      for (const size of [1, 2, 7]) assert.deepEqual(content(viaGateway(c, size)), g, `${size}-byte network chunks`);
      assert.equal(g.status, 'ok');
      assert.ok(g.response, 'a response');
      assert.ok(g.tools && JSON.parse(g.tools).every((t: { type: string }) => typeof t.type === 'string'), 'tools as a list');
    });
  }

  it('reads what each call says (not only that the paths agree)', () => {
    const [chatStream, chatJson, respStream, respJson] = calls.map((c) => content(viaGateway(c)));
    assert.equal(chatStream.response?.reasoning, '闰年规则：能被 400 整除的年份才是闰年，2100 不是。');
    assert.equal(chatStream.response?.content, '问题在 parse_date：它先构造日期 ✓ 再读年份 🚀。');
    assert.deepEqual(chatStream.response?.tool_calls, [{ id: 'call_Zx81pQ', type: 'function', function: { name: 'bash', arguments: '{"command":"sed -n 1,40p src/dates.py"}' } }]);
    assert.deepEqual([chatStream.finish_reason, chatStream.prompt_tokens, chatStream.completion_tokens], ['tool_calls', 412, 86], 'usage from the include_usage chunk');
    assert.equal(chatStream.messages[1].content, '测试失败了：闰日解析报错。修一下。\n[image]', 'multi-part user content');
    assert.ok(chatStream.messages[1].parts?.includes('image_url'));
    assert.equal(chatJson.response?.content, null);
    assert.equal(chatJson.finish_reason, 'tool_calls');
    assert.equal(respStream.response?.reasoning, '2100 不是闰年；parse_date 用错了年份。');
    assert.equal(respStream.response?.content, '问题在 parse_date ✓ 🚀');
    assert.equal(respStream.response?.tool_calls?.[0].id, 'call_Zx81pQ');
    assert.deepEqual([respStream.finish_reason, respStream.prompt_tokens, respStream.completion_tokens], ['tool_calls', 402, 77]);
    assert.equal(respStream.messages[0].role, 'system');
    assert.deepEqual(respStream.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool'], 'reasoning + function_call merge into one assistant turn');
    assert.equal(respStream.messages[2].reasoning, 'Run the failing test first.');
    assert.deepEqual(JSON.parse(respStream.tools ?? '[]')[0].function.name, 'bash', 'Responses tools in the chat shape');
    assert.equal(respJson.finish_reason, 'length', 'incomplete (max_output_tokens) → length');
  });
});
