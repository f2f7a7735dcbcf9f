import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importBytes, importFixture } from './helpers/real-read';

describe('VCR cassettes (vcrpy / pytest-recording YAML)', () => {
  it('reads a vcrpy cassette: JSON-string requests, a !!binary gzip response, an error; skips non-LLM interactions', async () => {
    const { format, steps, rejected } = await importFixture('vcr-openai.yaml');
    assert.equal(format, 'vcr');
    assert.deepEqual(rejected, []);
    assert.equal(steps.length, 3, 'the GET /v1/models interaction is no LLM call');
    const [first, second, limited] = steps;
    assert.equal(first.messages[0].content, "What's the weather like in Boston?");
    assert.equal(JSON.parse(first.tools ?? '[]')[0].function.name, 'get_weather');
    assert.deepEqual(first.response?.tool_calls?.[0].function, { name: 'get_weather', arguments: '{"location":"Boston, MA"}' }, 'gzip body decoded');
    assert.equal(first.finish_reason, 'tool_calls');
    assert.equal(first.prompt_tokens, 80);
    assert.equal(first.model, 'gpt-4o-mini-2024-07-18');
    assert.equal(first.metadata?.interactions_skipped, '1');
    assert.equal(second.trajectory_uid, first.trajectory_uid, 'the tool round-trip joins the first call');
    assert.equal(second.step_index, 1);
    assert.equal(second.response?.content, "It's 3 °C with light snow in Boston.");
    assert.equal(limited.status, 'error');
    assert.match(limited.error ?? '', /Rate limit reached/);
    assert.equal(limited.metadata?.http_status, '429');
    for (const s of steps) assert.ok(!s.raw?.includes('sk-proj-VcRkEy'), 'authorization header redacted');
  });

  it('reads a pydantic-ai cassette: parsed_body requests and responses, SSE transcript, document end marker', async () => {
    const { format, steps } = await importFixture('vcr-pydantic-ai.yaml');
    assert.equal(format, 'vcr');
    assert.equal(steps.length, 2);
    const [stream, json] = steps;
    assert.equal(stream.provider, 'anthropic');
    assert.equal(stream.messages[0].content, 'How do I cross the street?');
    assert.equal(stream.response?.reasoning, 'Look both ways first.');
    assert.equal(stream.response?.content, 'Use a crosswalk and look both ways.');
    assert.equal(stream.finish_reason, 'stop');
    assert.equal(stream.completion_tokens, 41);
    assert.deepEqual(json.messages.map((m) => [m.role, m.content]), [['system', 'Be brief.'], ['user', 'Say hi']]);
    assert.equal(json.response?.content, 'Hi!');
    assert.notEqual(json.trajectory_uid, stream.trajectory_uid);
  });

  it('rejects broken YAML with its line instead of reading it as JSON Lines', async () => {
    const { rejected, steps } = await importBytes(new TextEncoder().encode('interactions:\n- request:\n    uri: "unterminated\n  response: {\n'));
    assert.equal(steps.length, 0);
    assert.equal(rejected.length, 1);
    assert.match(rejected[0].reason, /not valid YAML/);
  });
});
