import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiLog } from '../../src/ingest/normalizers/openai-log';
import { fixtureRecords, runFixture, runNormalizer } from './helpers/formats';

describe('openai-log normalizer', () => {
  it('links a growing request log into one trajectory with parallel tool calls', () => {
    const rows = runFixture(openaiLog, 'openai-log-requests.jsonl');
    const [first, second] = rows;
    assert.equal(first.trajectory_uid, second.trajectory_uid);
    assert.deepEqual([first.step_index, second.step_index], [0, 1]);
    assert.equal(second.step_id, `${first.trajectory_uid}:1`);
    assert.equal(first.prompt_uid, second.prompt_uid);
    assert.equal(first.provider, 'openai');
    assert.equal(first.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(first.finish_reason, 'tool_calls');
    assert.deepEqual(
      first.response?.tool_calls?.map((c) => [c.id, c.function.arguments]),
      [
        ['call_Xp1', '{"city":"Paris"}'],
        ['call_Xp2', '{"city":"London"}'],
      ],
      'double-encoded arguments are unwrapped',
    );
    assert.equal(first.prompt_tokens, 96);
    assert.equal(first.completion_tokens, 46);
    assert.equal(first.latency_ms, 812.5);
    assert.equal(first.started_at, Date.parse('2026-12-02T10:00:00.000Z'));
    assert.equal(first.metadata?.temperature, '0.2');
    assert.equal(first.metadata?.response_id, 'chatcmpl-AaA001');
    assert.ok(first.tools?.includes('get_weather'));
    assert.ok(!first.raw?.includes('sk-proj-'), 'secrets are stripped from raw');
    assert.equal(second.messages.length, 5);
    assert.equal(second.messages[3].tool_call_id, 'call_Xp1');
    assert.equal(second.response_text, 'Paris: 18°C and clear. London: 12°C with rain.');
  });

  it('handles top-level, error, SSE-string, input/output and empty-history variants', () => {
    const rows = runFixture(openaiLog, 'openai-log-requests.jsonl');
    assert.equal(rows.length, 8, 'two choices of the top-level record become two trajectories');
    const [, , c0, c1, err, sse, io, empty] = rows;
    assert.equal(c0.messages[0].content, 'Translate to French:\nGood morning');
    assert.deepEqual([c0.response_text, c1.response_text], ['Bonjour', 'Bon matin']);
    assert.notEqual(c0.trajectory_uid, c1.trajectory_uid);
    assert.equal(c0.prompt_uid, c1.prompt_uid, 'alternative choices share the prompt group');
    assert.equal(err.status, 'error');
    assert.equal(err.finish_reason, 'error');
    assert.match(err.error ?? '', /^rate_limit_exceeded: Rate limit reached/);
    assert.equal(err.response, null);
    assert.equal(err.metadata?.status_code, undefined);
    assert.equal(sse.model, 'deepseek-reasoner');
    assert.equal(sse.messages[0].content, 'What is 17*23?');
    assert.equal(sse.response?.reasoning, 'The user wants 17*23. Use the calculator.');
    assert.deepEqual(sse.response?.tool_calls, [{ id: 'call_calc1', type: 'function', function: { name: 'calculator', arguments: '{"expr":"17*23"}' } }]);
    assert.equal(sse.finish_reason, 'tool_calls');
    assert.deepEqual([sse.prompt_tokens, sse.completion_tokens, sse.latency_ms], [33, 41, 2210]);
    assert.ok(sse.tools?.includes('calculator'), 'string-encoded request is decoded');
    assert.equal(io.messages[0].content, null);
    assert.equal(io.response?.content, '');
    assert.equal(io.prompt_tokens, null);
    assert.equal(io.metadata?.metadata, '{"env":"staging","run":null}');
    assert.deepEqual(empty.messages, []);
    assert.equal(empty.response_text, 'Hello! How can I help?');
  });

  it('reassembles interleaved chunk streams from JSONL, grouped by id', () => {
    const rows = runFixture(openaiLog, 'openai-log-chunks.jsonl');
    assert.equal(rows.length, 2);
    const s1 = rows.find((r) => r.metadata?.response_id === 'chatcmpl-S1');
    const s2 = rows.find((r) => r.metadata?.response_id === 'chatcmpl-S2');
    assert.equal(s1?.response_text, 'Hello there');
    assert.equal(s1?.finish_reason, 'stop');
    assert.equal(s1?.completion_tokens, 3);
    assert.equal(s1?.source_line, 1);
    assert.deepEqual(
      s2?.response?.tool_calls?.map((c) => c.function.arguments),
      ['{"q":"arrow"}', '{"q":"duckdb wasm"}'],
    );
    assert.equal(s2?.response?.content, null);
    assert.equal(s2?.prompt_tokens, null);
    assert.ok(s2?.raw?.includes('"object":"chat.completion"'));
    assert.notEqual(s1?.trajectory_uid, s2?.trajectory_uid);
  });

  it('reassembles a raw SSE file handed over one event per record', () => {
    const rows = runFixture(openaiLog, 'openai-log-stream.sse');
    assert.equal(rows.length, 1);
    assert.equal(rows[0].response_text, 'The answer is 42.');
    assert.equal(rows[0].finish_reason, 'length');
    assert.equal(rows[0].model, 'gpt-4.1');
  });

  it('emits a still-open stream at flush and accepts one record holding the whole SSE text', () => {
    const recs = fixtureRecords('openai-log-stream.sse').filter((r) => r.value !== '[DONE]');
    assert.equal(runNormalizer(openaiLog, recs)[0]?.response_text, 'The answer is 42.');
    const text = recs.map((r) => `data: ${JSON.stringify(r.value)}\n\n`).join('');
    const rows = runNormalizer(openaiLog, [{ value: text, line: 1, index: 0 }]);
    assert.equal(rows[0]?.response_text, 'The answer is 42.');
  });

  it('detects its records and not plain chat files', () => {
    assert.ok(openaiLog.detect(fixtureRecords('openai-log-requests.jsonl').map((r) => r.value)) > 0.8);
    assert.ok(openaiLog.detect(fixtureRecords('openai-log-chunks.jsonl').map((r) => r.value)) > 0.8);
    assert.equal(openaiLog.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
    assert.equal(openaiLog.detect([{ request: { model: 'claude', system: 'x', messages: [] }, response: { type: 'message', content: [] } }]), 0);
  });
});
