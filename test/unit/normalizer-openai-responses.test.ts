import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openaiResponses } from '../../src/ingest/normalizers/openai-responses';
import { fixtureRecords, runFixture } from './helpers/formats';

describe('openai-responses normalizer', () => {
  it('joins a previous_response_id chain into one trajectory named after its first response', () => {
    const rows = runFixture(openaiResponses, 'openai-responses.jsonl');
    const chain = rows.filter((r) => r.trajectory_uid === 'resp_001');
    assert.deepEqual(
      chain.map((r) => r.step_id),
      ['resp_001:0', 'resp_001:1', 'resp_001:2'],
    );
    const [s0, s1, s2] = chain;
    assert.deepEqual(
      s0.messages.map((m) => [m.role, m.content]),
      [
        ['system', 'You are a shopping assistant.'],
        ['user', 'Find me a waterproof jacket under $100'],
      ],
    );
    assert.equal(s0.response?.reasoning, 'Need to search the catalog twice.');
    assert.deepEqual(
      s0.response?.tool_calls?.map((c) => [c.id, c.function.arguments]),
      [
        ['call_s1', '{"query":"waterproof jacket","max_price":100}'],
        ['call_s2', '{"query":"rain coat"}'],
      ],
    );
    assert.equal(s0.finish_reason, 'tool_calls');
    assert.deepEqual([s0.prompt_tokens, s0.completion_tokens], [210, 64]);
    assert.equal(s0.metadata?.reasoning_tokens, '32');
    assert.equal(s0.started_at, 1764670000000);
    assert.equal(s0.latency_ms, 3000);
    assert.ok(s0.tools?.includes('search_products'));
    assert.deepEqual(
      s1.messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'tool', 'tool'],
      'the chained request sees the whole conversation',
    );
    assert.equal(s1.messages[3].tool_call_id, 'call_s1');
    assert.equal(s1.response_text, 'The Rain Shell at $89 fits your budget.');
    assert.equal(s1.metadata?.cached_tokens, '256');
    assert.equal(s1.metadata?.previous_response_id, 'resp_001');
    assert.equal(s2.finish_reason, 'length');
    assert.equal(s2.messages.at(-1)?.content, 'The Rain Shell at $89 fits your budget.');
    assert.equal(s0.prompt_uid, s2.prompt_uid);
  });

  it('maps failures, multimodal input and stateless histories', () => {
    const rows = runFixture(openaiResponses, 'openai-responses.jsonl');
    const failed = rows.find((r) => r.trajectory_uid === 'resp_010');
    assert.equal(failed?.status, 'error');
    assert.equal(failed?.error, 'server_error: The server had an error processing your request.');
    assert.equal(failed?.response, null);
    assert.equal(failed?.messages[0].content, 'Describe this image\n[image]');
    const stateless = rows.find((r) => r.trajectory_uid === 'resp_020');
    assert.deepEqual(
      stateless?.messages.map((m) => [m.role, m.content]),
      [
        ['developer', 'Answer in French.'],
        ['user', 'Hello'],
        ['assistant', 'Bonjour !'],
        ['user', 'How are you?'],
      ],
    );
    assert.equal(stateless?.finish_reason, 'stop');
  });

  it('takes the final response of a streamed event log', () => {
    const rows = runFixture(openaiResponses, 'openai-responses-events.jsonl');
    assert.equal(rows.length, 1);
    assert.equal(rows[0].response_text, 'Hi there!');
    assert.equal(rows[0].trajectory_uid, 'resp_100');
  });

  it('detects Responses objects and not chat completions', () => {
    assert.ok(openaiResponses.detect(fixtureRecords('openai-responses.jsonl').map((r) => r.value)) > 0.9);
    assert.ok(openaiResponses.detect(fixtureRecords('openai-responses-events.jsonl').map((r) => r.value)) > 0.8);
    assert.equal(openaiResponses.detect(fixtureRecords('openai-log-requests.jsonl').map((r) => r.value)), 0);
  });
});
