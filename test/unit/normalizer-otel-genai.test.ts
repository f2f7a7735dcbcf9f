import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importFixture } from './helpers/real-read';

describe('OpenTelemetry GenAI semantic conventions: current and older event forms', () => {
  it('reads the operation.details event as an OTLP log record (structured values) and as a span event (JSON text)', async () => {
    const { format, steps, rejected } = await importFixture('otel-genai-current.jsonl');
    assert.equal(format, 'otel');
    assert.deepEqual(rejected, [], 'the resourceLogs line is part of the export, not a rejected record');
    assert.equal(steps.length, 2, 'two chat spans; invoke_agent and execute_tool are no LLM calls');
    const [first, second] = steps;
    assert.equal(second.trajectory_uid, first.trajectory_uid);
    assert.deepEqual([first.step_index, second.step_index], [0, 1], 'ordered by span start, not by where the content was found');
    assert.deepEqual(first.messages.map((m) => [m.role, m.content]), [['system', 'You are a travel assistant.'], ['user', 'Weather in Paris?']]);
    assert.deepEqual(first.response?.tool_calls?.[0], { id: 'call_Wx42', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    assert.equal(first.finish_reason, 'tool_calls');
    assert.equal(first.prompt_tokens, 91);
    assert.equal(first.model, 'gpt-4.1-2025-04-14');
    assert.equal(first.provider, 'openai');
    assert.deepEqual(JSON.parse(first.tools ?? '[]')[0].function.name, 'get_weather', 'flat semconv tool definitions in the OpenAI shape');
    assert.equal(JSON.parse(first.metadata?.tools_original ?? '[]')[0].name, 'get_weather', 'original kept');
    assert.deepEqual(second.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
    assert.equal(second.messages[3].tool_call_id, 'call_Wx42');
    assert.equal(second.messages[3].content, 'rainy, 57°F');
    assert.equal(second.response?.content, "It's rainy and 57°F in Paris.");
    assert.equal(second.finish_reason, 'stop');
  });

  it('joins the older one-log-record-per-message events to their span', async () => {
    const { format, steps } = await importFixture('otel-genai-legacy-logs.json');
    assert.equal(format, 'otel');
    assert.equal(steps.length, 1);
    assert.deepEqual(steps[0].messages.map((m) => [m.role, m.content]), [['system', 'You are terse.'], ['user', 'Capital of Peru?']]);
    assert.equal(steps[0].response?.content, 'Lima.');
    assert.equal(steps[0].finish_reason, 'stop');
    assert.equal(steps[0].provider, 'openai');
    assert.equal(steps[0].completion_tokens, 9);
  });
});
