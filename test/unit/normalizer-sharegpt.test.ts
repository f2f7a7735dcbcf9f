import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharegpt } from '../../src/ingest/normalizers/sharegpt';
import { fixtureRecords, runFixture } from './helpers/formats';

describe('sharegpt normalizer', () => {
  it('turns LLaMA-Factory function calls and observations into tool calls and tool messages', () => {
    const rows = runFixture(sharegpt, 'sharegpt-llamafactory.jsonl');
    const first = rows.filter((r) => r.source_line === 1);
    assert.equal(first.length, 3, 'one step per assistant turn (two function_call turns + final answer)');
    assert.deepEqual(
      first.map((r) => [r.step_index, r.is_last]),
      [
        [0, false],
        [1, false],
        [2, null],
      ],
    );
    assert.equal(new Set(first.map((r) => r.trajectory_uid)).size, 1);
    assert.equal(first[0].messages[0].role, 'system');
    assert.deepEqual(first[0].response?.tool_calls, [
      { id: 'sharegpt_call_1_0', type: 'function', function: { name: 'get_exchange_rate', arguments: '{"base":"USD","target":"EUR"}' } },
    ]);
    assert.equal(first[1].response?.tool_calls?.length, 2, 'parallel calls from a JSON array');
    assert.equal(first[1].response?.tool_calls?.[0].function.arguments, '{"amount":250,"rate":0.92}');
    const last = first[2];
    const tools = last.messages.filter((m) => m.role === 'tool');
    assert.deepEqual(
      tools.map((m) => [m.tool_call_id, m.name]),
      [
        ['sharegpt_call_1_0', 'get_exchange_rate'],
        ['sharegpt_call_3_0', 'convert'],
        ['sharegpt_call_3_1', 'get_exchange_rate'],
      ],
    );
    assert.equal(last.response_text, "250 USD is about 230 EUR at today's rate of 0.92.");
    assert.equal(JSON.parse(last.tools ?? '[]')[0].function.name, 'get_exchange_rate');
    assert.equal(last.prompt_uid, first[0].prompt_uid);
  });

  it('keeps ids, metadata and prompt-only conversations', () => {
    const rows = runFixture(sharegpt, 'sharegpt-llamafactory.jsonl');
    const two = rows.filter((r) => r.trajectory_uid === 'sg-0002');
    assert.deepEqual(
      two.map((r) => r.step_id),
      ['sg-0002:0', 'sg-0002:1'],
    );
    assert.equal(two[1].messages.length, 4);
    assert.equal(two[0].metadata?.source, 'synthetic-v2');
    const prompt = rows.find((r) => r.source_line === 3);
    assert.equal(prompt?.response, null);
    assert.equal(prompt?.tools, null);
    assert.equal(prompt?.messages[0].content, 'Write a haiku about rain.');
  });

  it('reads JSON arrays with empty, null and missing turns', () => {
    const rows = runFixture(sharegpt, 'sharegpt-array.json');
    assert.deepEqual(
      rows.map((r) => r.step_id),
      ['QWJhYvA_0:0', 'QWJhYvA_1:0', 'QWJhYvA_1:1', 'QWJhYvA_2:0'],
    );
    assert.equal(rows[1].response?.content, '');
    assert.equal(rows[2].messages[2].content, null);
    assert.deepEqual(rows[3].messages, [], 'conversation that starts with the model');
  });

  it('reads one object holding a list of conversations', () => {
    const rows = runFixture(sharegpt, 'sharegpt-nested.json');
    assert.equal(rows.length, 2);
    assert.notEqual(rows[0].trajectory_uid, rows[1].trajectory_uid);
    assert.equal(rows[1].response_text, '6');
  });

  it('detects from/value conversations only', () => {
    assert.ok(sharegpt.detect(fixtureRecords('sharegpt-llamafactory.jsonl').map((r) => r.value)) > 0.9);
    assert.ok(sharegpt.detect(fixtureRecords('sharegpt-nested.json').map((r) => r.value)) > 0.9);
    assert.equal(sharegpt.detect([{ messages: [{ role: 'user', content: 'x' }] }]), 0);
  });
});
