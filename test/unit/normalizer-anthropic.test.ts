import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { anthropic } from '../../src/ingest/normalizers/anthropic';
import { fixtureRecords, runFixture, runNormalizer } from './helpers/formats';

describe('anthropic normalizer', () => {
  it('links a tool-using agent loop into one trajectory', () => {
    const rows = runFixture(anthropic, 'anthropic-requests.jsonl');
    const [s0, s1, s2] = rows;
    assert.deepEqual([s1.trajectory_uid, s2.trajectory_uid], [s0.trajectory_uid, s0.trajectory_uid]);
    assert.deepEqual(
      rows.slice(0, 3).map((r) => r.step_index),
      [0, 1, 2],
    );
    assert.equal(s0.step_id, `${s0.trajectory_uid}:0`);
    assert.equal(s0.provider, 'anthropic');
    assert.equal(s0.messages[0].role, 'system');
    assert.equal(s0.messages[0].content, 'You are a careful coding agent working in a Python repo.');
    assert.equal(s0.response?.reasoning, 'I should read the file first.');
    assert.ok(s0.response?.parts?.includes('EqQBCkYIBxgCKkDhT0eX9sig=='), 'thinking signature kept in parts');
    assert.equal(s0.response?.content, 'Let me look at the file.');
    assert.deepEqual(s0.response?.tool_calls, [{ id: 'toolu_01', type: 'function', function: { name: 'read_file', arguments: '{"path":"utils.py"}' } }]);
    assert.equal(s0.finish_reason, 'tool_calls');
    assert.equal(s0.prompt_tokens, 1512, 'prompt tokens include cache writes and reads');
    assert.equal(s0.completion_tokens, 88);
    assert.deepEqual([s0.metadata?.cache_creation_input_tokens, s0.metadata?.cache_read_input_tokens, s0.metadata?.input_tokens], ['1500', '0', '12']);
    assert.equal(s0.metadata?.thinking, '{"type":"enabled","budget_tokens":2048}');
    assert.ok(JSON.parse(s0.tools ?? '[]')[0].function.parameters, 'tools in the OpenAI shape, as on every path');
    assert.ok(JSON.parse(s0.metadata?.tools_original ?? '[]')[0].input_schema, 'the Anthropic original kept');
    assert.equal(s0.latency_ms, 2300);
    assert.ok(!s0.raw?.includes('sk-ant-'), 'api key stripped');
    assert.equal(s1.messages[3].role, 'tool');
    assert.equal(s1.messages[3].tool_call_id, 'toolu_01');
    assert.equal(s1.messages[3].content, 'def add(a, b):\n    return a - b\n');
    assert.equal(s1.response?.tool_calls?.length, 2, 'parallel tool_use blocks');
    assert.equal(s1.metadata?.cache_read_input_tokens, '1500', 'string-encoded response decoded');
    const tools = s2.messages.filter((m) => m.role === 'tool').slice(-2);
    assert.deepEqual(
      tools.map((m) => [m.tool_call_id, m.content]),
      [
        ['toolu_02', 'ok'],
        ['toolu_03', '[error] FAILED tests/test_utils.py::test_sub - assert 5 == -1'],
      ],
    );
    assert.ok(tools[1].parts?.includes('"is_error":true'));
    assert.equal(s2.messages.at(-1)?.content, 'Also keep test_sub passing.');
    assert.equal(s2.metadata?.tool_result_errors, '1');
    assert.equal(s2.response?.content, 'test_sub was already wrong: it expects subtraction from add().');
    assert.equal(s2.response?.reasoning, '[redacted_thinking]');
    assert.equal(s2.finish_reason, 'stop');
    assert.deepEqual([s2.prompt_tokens, s2.completion_tokens], [1860, 57]);
  });

  it('maps errors, max_tokens, top-level requests and bare responses', () => {
    const [, , , err, maxed, bare] = runFixture(anthropic, 'anthropic-requests.jsonl');
    assert.equal(err.status, 'error');
    assert.equal(err.error, 'overloaded_error: Overloaded');
    assert.equal(err.finish_reason, 'error');
    assert.equal(err.response, null);
    assert.equal(maxed.finish_reason, 'length');
    assert.equal(maxed.messages[0].content, 'Answer in one word.');
    assert.equal(maxed.response_text, 'Paris, because');
    assert.deepEqual(bare.messages, []);
    assert.equal(bare.response?.content, null);
    assert.equal(bare.finish_reason, 'stop');
    assert.equal(bare.model, 'claude-opus-4-1');
  });

  it('reassembles one event per JSONL line, wrapped or not, and an errored stream', () => {
    const rows = runFixture(anthropic, 'anthropic-events.jsonl');
    assert.equal(rows.length, 2);
    const [ok, failed] = rows;
    assert.equal(ok.response?.content, 'Searching now.');
    assert.deepEqual(ok.response?.tool_calls?.[0].function, { name: 'web_search', arguments: '{"query":"duckdb wasm opfs"}' });
    assert.equal(ok.finish_reason, 'tool_calls');
    assert.deepEqual([ok.prompt_tokens, ok.completion_tokens], [310, 41]);
    assert.equal(ok.source_line, 1);
    assert.equal(ok.metadata?.response_id, 'msg_S1');
    assert.equal(failed.status, 'error');
    assert.equal(failed.error, 'overloaded_error: Overloaded');
    assert.ok(failed.raw?.includes('Partial ans'), 'partial output kept in raw');
  });

  it('reassembles thinking with its signature from a raw SSE file and from one SSE string', () => {
    const recs = fixtureRecords('anthropic-stream.sse');
    for (const rows of [runNormalizer(anthropic, recs), runNormalizer(anthropic, [{ value: `event: x\n${recs.map((r) => `data: ${JSON.stringify(r.value)}\n\n`).join('')}`, line: 1, index: 0 }])]) {
      assert.equal(rows.length, 1);
      assert.equal(rows[0].response?.reasoning, '27 is 3^3, so the cube root is 3.');
      assert.ok(rows[0].response?.parts?.includes('EqQBCgIYAhIM1gbcDa9GJwZA2b3h'));
      assert.equal(rows[0].response_text, 'The cube root of 27 is 3.');
      assert.equal(rows[0].prompt_tokens, 2056);
    }
  });

  it('detects Anthropic logs and rejects OpenAI ones', () => {
    for (const f of ['anthropic-requests.jsonl', 'anthropic-events.jsonl', 'anthropic-stream.sse']) {
      assert.ok(anthropic.detect(fixtureRecords(f).map((r) => r.value)) > 0.8, f);
    }
    assert.equal(anthropic.detect(fixtureRecords('openai-log-requests.jsonl').map((r) => r.value)), 0);
    assert.equal(anthropic.detect([{ messages: [{ role: 'user', content: 'hi' }] }]), 0);
  });
});
