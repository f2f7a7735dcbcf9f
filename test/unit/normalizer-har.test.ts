import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { har } from '../../src/ingest/normalizers/har';
import { openaiChat } from '../../src/ingest/normalizers/openai-chat';
import { records, run, sample } from './format-helpers';

describe('har normalizer', () => {
  it('detects HAR and request/response recordings by content', () => {
    assert.ok(har.detect(sample('devtools-export.har')) > 0.9);
    assert.ok(har.detect(sample('http-recording.jsonl')) > 0.6);
    assert.equal(har.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
    assert.equal(openaiChat.detect(sample('devtools-export.har')), 0);
  });

  it('turns every LLM call of a DevTools HAR into a step and skips the rest', () => {
    const rows = run(har, records('devtools-export.har'));
    assert.equal(rows.length, 5, 'asset GET and the CORS preflight are skipped');
    assert.deepEqual(rows.map((r) => r.provider), ['openai', 'openai', 'anthropic', 'openai', 'openai']);
    assert.equal(rows[0].metadata?.har_entries_skipped, '2');
  });

  it('links the tool round-trip into one trajectory and reassembles gzipped SSE', () => {
    const [first, second] = run(har, records('devtools-export.har'));
    assert.equal(first.response?.tool_calls?.[0].function.name, 'check_stock');
    assert.equal(first.finish_reason, 'tool_calls');
    assert.equal(first.prompt_tokens, 112);
    assert.equal(second.trajectory_uid, first.trajectory_uid);
    assert.equal(second.step_index, 1);
    assert.equal(second.step_id, `${first.trajectory_uid}:1`);
    assert.equal(second.response?.content, 'Yes — 4 blue kettles are in stock in Lyon.');
    assert.equal(second.completion_tokens, 12);
    assert.equal(second.finish_reason, 'stop');
    assert.equal(second.messages.at(-1)?.role, 'tool');
    assert.ok(second.tools?.includes('check_stock'));
    assert.equal(first.latency_ms, 912.4);
    assert.equal(first.started_at, Date.parse('2026-12-02T09:15:00.100Z'));
    assert.equal(first.ended_at, Date.parse('2026-12-02T09:15:00.100Z') + 912.4);
  });

  it('reassembles an Anthropic stream with thinking and a streamed tool input', () => {
    const a = run(har, records('devtools-export.har'))[2];
    assert.equal(a.messages[0].role, 'system');
    assert.equal(a.messages[0].content, 'You are a travel helper.');
    assert.equal(a.response?.content, 'Let me check the forecast.');
    assert.equal(a.response?.reasoning, 'Need the weather tool.');
    assert.deepEqual(a.response?.tool_calls, [{ id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    assert.equal(a.finish_reason, 'tool_calls');
    assert.equal(a.prompt_tokens, 1420, 'cache reads count as prompt tokens');
    assert.equal(a.completion_tokens, 58);
    assert.equal(a.model, 'claude-sonnet-4-5-20250929');
    assert.ok(a.tools?.includes('"parameters"'));
  });

  it('reports HTTP failures and aborted requests as error steps', () => {
    const rows = run(har, records('devtools-export.har'));
    assert.equal(rows[3].status, 'error');
    assert.equal(rows[3].error, 'Resource has been exhausted (e.g. check quota).');
    assert.equal(rows[3].finish_reason, 'error');
    assert.equal(rows[4].status, 'error');
    assert.match(rows[4].error ?? '', /HTTP 0/);
  });

  it('strips credentials, cookies and URL keys from raw and metadata', () => {
    const rows = run(har, records('devtools-export.har'));
    const all = JSON.stringify(rows);
    for (const secret of ['sk-proj-AbCdEf', 'sk-ant-api03', 'abc123def456', 'newcookievalue', 'AIzaSyD-1234']) assert.ok(!all.includes(secret), secret);
    assert.match(rows[3].metadata?.url ?? '', /key=\[redacted\]/);
    const raw = JSON.parse(rows[1].raw ?? '{}');
    assert.match(raw.response.content.text, /^data: /, 'raw keeps the decoded body');
    assert.ok(rows[0].raw!.length < 8000, 'raw is the entry, not the whole HAR');
  });

  it('reads plain request/response recordings with gzip+base64 bodies', () => {
    const rows = run(har, records('http-recording.jsonl'));
    assert.equal(rows.length, 2, 'GET /models is skipped');
    assert.equal(rows[0].response?.content, 'Hi!');
    assert.equal(rows[0].latency_ms, 1234);
    assert.equal(rows[1].response?.content, 'Teal.');
    assert.equal(rows[1].finish_reason, 'stop');
    assert.ok(!rows[1].raw!.includes('local-dev-key'));
    assert.ok(!rows[0].raw!.includes('sk-or-v1'));
  });
});
