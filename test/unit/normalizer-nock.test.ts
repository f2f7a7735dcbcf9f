import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importFixture } from './helpers/real-read';

describe('nock recordings (issue 16 defect 3)', () => {
  it('keeps the request: messages and tools of every recorded LLM call', async () => {
    const { format, steps } = await importFixture('nock-recording.json');
    assert.equal(format, 'har');
    assert.equal(steps.length, 4, 'four POSTs to LLM APIs; the GET /v1/models is not a call');
    const [first, second, claude] = steps;
    assert.deepEqual(first.messages.map((m) => m.role), ['system', 'user']);
    assert.equal(first.messages[1].content, 'Where is my order 8812?');
    assert.ok(JSON.parse(first.tools ?? '[]')[0].function.name === 'get_order');
    assert.equal(first.response?.tool_calls?.[0].function.arguments, '{"order_id":"8812"}', 'SSE tool-call arguments reassembled');
    assert.equal(first.finish_reason, 'tool_calls');
    assert.equal(first.prompt_tokens, 96);
    assert.equal(first.provider, 'openai');
    assert.equal(first.model, 'gpt-4.1-mini-2025-04-14');
    assert.equal(first.metadata?.url, 'https://api.openai.com:443/v1/chat/completions');
    assert.equal(second.response?.content, 'Order 8812 has shipped with DHL and should arrive on 5 December.');
    assert.equal(claude.messages[0].content, 'Answer in one short sentence.');
    assert.equal(claude.response?.content, 'DHL ships to Norway.');
    assert.equal(claude.finish_reason, 'stop');
    assert.equal(claude.provider, 'anthropic');
    const gz = steps[3];
    assert.equal(gz.response?.content, 'Returns are free within 30 days.', 'gzipped hex chunks decoded');
    assert.equal(gz.messages[0].content, 'What is your return policy?');
    assert.equal(gz.completion_tokens, 52);
  });

  it('joins the follow-up call that extends the first call into its trajectory', async () => {
    const [first, second, claude] = (await importFixture('nock-recording.json')).steps;
    assert.equal(second.trajectory_uid, first.trajectory_uid);
    assert.deepEqual([first.step_index, second.step_index], [0, 1]);
    assert.equal(second.messages.at(-1)?.role, 'tool');
    assert.notEqual(claude.trajectory_uid, first.trajectory_uid, 'an unrelated conversation is its own trajectory');
  });

  it('keeps no credential-like header in raw', async () => {
    const { steps } = await importFixture('nock-recording.json');
    for (const s of steps) assert.ok(!/sk-proj-|sk-ant-api/.test(s.raw ?? ''), 'API keys from reqheaders redacted');
  });
});
