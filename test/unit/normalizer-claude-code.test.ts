import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { claudeCode } from '../../src/ingest/normalizers/claude-code';
import { fixtureRecords, runFixture, runNormalizer } from './helpers/formats';

const SESSION = '5d3f2c1a-8e4b-4f7a-9c2d-1b6e0a9f4c37';

describe('claude-code normalizer', () => {
  const rows = runFixture(claudeCode, 'claude-code-session.jsonl');
  const main = rows.filter((r) => r.trajectory_uid === SESSION);
  const side = rows.filter((r) => r.trajectory_uid !== SESSION);

  it('wins detection over the whole registry', () => {
    const d = detectFormat(fixtureRecords('claude-code-session.jsonl').map((r) => r.value));
    assert.equal(d.normalizer.id, 'claude-code', JSON.stringify(d.scores));
  });

  it('makes one step per API response: lines sharing a message.id merge', () => {
    // 4 responses in the main chain (3 + 3 + 1 + 1 lines), 2 in the subagent's sidechain
    assert.equal(main.length, 4);
    assert.equal(side.length, 2);
    assert.deepEqual(
      main.map((r) => r.metadata?.message_id),
      ['msg_01HqX3rV8nTz5wKc2L', 'msg_01Bk9fW2sLr4Yd8Nq1', 'msg_01Tk2pQ8vNc6Jh3Wr5', 'msg_01Wf6yB1kDs8Gn4Pa7'],
    );
    const first = main[0];
    assert.equal(first.response?.reasoning, 'The bug is probably in the header sniffing. I should read parser.py before changing anything.');
    assert.equal(first.response?.content, 'Let me read the parser first.');
    assert.deepEqual(first.response?.tool_calls, [{ id: 'toolu_01Read7kPq', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/home/dev/projects/tidy-csv/tidy_csv/parser.py"}' } }]);
    assert.equal(first.finish_reason, 'tool_calls');
    assert.equal(first.completion_tokens, 118, 'usage of the last line of the response');
    assert.equal(first.prompt_tokens, 4 + 1893 + 14208, 'input plus cache creation plus cache reads');
    assert.equal(first.metadata?.cache_read_input_tokens, '14208');
    assert.equal(first.model, 'claude-sonnet-4-5-20250929');
    assert.equal(first.provider, 'anthropic');
    assert.equal(first.agent, 'claude-code');
    assert.equal(first.source_line, 4);
    assert.equal(first.started_at, Date.parse('2025-10-14T09:12:06.410Z'));
    assert.equal(first.ended_at, Date.parse('2025-10-14T09:12:07.015Z'));
    assert.equal(main[1].response?.tool_calls?.length, 2, 'parallel Edit + Bash calls of one response');
  });

  it('builds each prompt from the parentUuid chain, tool results paired with their calls by id', () => {
    assert.deepEqual(main[0].messages, [{ role: 'user', content: 'parse_rows() drops the first row when the CSV has no header line. Fix it and run the tests.' }]);
    const third = main[2];
    assert.deepEqual(
      third.messages.map((m) => m.role),
      ['user', 'assistant', 'tool', 'assistant', 'tool', 'tool'],
      'the hook `system` line in the chain is not a message',
    );
    const calls = third.messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
    const answers = third.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    assert.deepEqual(answers, calls);
    assert.equal(third.messages[5].content, '...\n3 passed in 0.04s');
    // the last step sees the Task result, and the thinking of earlier responses as reasoning
    const last = main[3];
    assert.equal(last.messages[1].reasoning?.startsWith('The bug is probably'), true);
    assert.equal(last.messages.at(-1)?.tool_call_id, 'toolu_01Task9xYe');
    assert.equal(last.finish_reason, 'stop');
    assert.equal(last.is_last, null);
    assert.equal(last.metadata?.session_title, 'Fix headerless CSV first-row drop');
    assert.deepEqual(
      main.map((r) => r.step_index),
      [0, 1, 2, 3],
    );
    assert.equal(new Set(main.map((r) => r.prompt_uid)).size, 1);
  });

  it('keeps a subagent sidechain as its own trajectory, linked to the session and the Task call', () => {
    assert.equal(side[0].trajectory_uid, `${SESSION}:agent-a7c41e0`);
    assert.equal(side[0].metadata?.parent_trajectory_uid, SESSION);
    assert.equal(side[0].metadata?.parent_tool_call_id, 'toolu_01Task9xYe');
    assert.equal(side[0].metadata?.is_sidechain, 'true');
    assert.equal(side[0].model, 'claude-haiku-4-5-20251001');
    assert.equal(side[0].messages.length, 1);
    assert.equal(side[0].messages[0].role, 'user');
    assert.deepEqual(
      side[1].messages.map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.equal(side[1].messages[2].tool_call_id, 'toolu_01Grep2aLm');
    assert.ok(!main.some((r) => r.messages.some((m) => m.tool_call_id === 'toolu_01Grep2aLm')), 'sidechain turns stay out of the main prompts');
  });

  it('a result whose line branched off the chain still answers its call', () => {
    // Bash result hanging off the last tool_use line instead of the Edit result: the chain skips the Edit result
    const recs = fixtureRecords('claude-code-session.jsonl').map((r) => {
      const v = r.value as Record<string, unknown>;
      if (v.uuid === 'e0a1f0d4-0000-4000-8000-00000000000b') return { ...r, value: { ...v, parentUuid: 'e0a1f0d4-0000-4000-8000-000000000008' } };
      return r;
    });
    const out = runNormalizer(claudeCode, recs).filter((r) => r.trajectory_uid === SESSION);
    const third = out[2];
    assert.deepEqual(
      third.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
      ['toolu_01Read7kPq', 'toolu_01Bash5tGh', 'toolu_01Edit3mZx'],
    );
  });

  it('does not claim other formats', () => {
    assert.equal(claudeCode.detect([{ messages: [{ role: 'user', content: 'x' }] }]), 0);
    assert.equal(claudeCode.detect([{ type: 'message', role: 'assistant', content: [] }]), 0);
  });

  it('the Task call names its subagent trajectory (toolUseResult.agentId)', () => {
    assert.deepEqual(JSON.parse(main[2].metadata?.subagent_trajectory_uids ?? '[]'), [`${SESSION}:agent-a7c41e0`]);
    assert.equal(main[0].metadata?.subagent_trajectory_uids, undefined);
  });

  it('a subagent in a file of its own (agent-<id>.jsonl) gets the same trajectory id as inline', () => {
    const recs = fixtureRecords('claude-code-session.jsonl');
    const isSide = (v: unknown) => (v as { isSidechain?: boolean }).isSidechain === true;
    const agentFile = runNormalizer(claudeCode, recs.filter((r) => isSide(r.value)));
    const mainFile = runNormalizer(claudeCode, recs.filter((r) => !isSide(r.value)));
    assert.deepEqual(
      agentFile.map((r) => [r.trajectory_uid, r.step_index, r.response_text]),
      side.map((r) => [r.trajectory_uid, r.step_index, r.response_text]),
    );
    assert.equal(agentFile[0].metadata?.parent_trajectory_uid, SESSION);
    assert.equal(mainFile.length, 4);
    assert.deepEqual(JSON.parse(mainFile[2].metadata?.subagent_trajectory_uids ?? '[]'), [`${SESSION}:agent-a7c41e0`]);
  });

  it('a sidechain root naming its Task call (parentToolUseId) is linked by it', () => {
    const recs = fixtureRecords('claude-code-session.jsonl').map((r) => {
      const v = r.value as Record<string, unknown>;
      if (v.uuid === 'e0a1f0d4-0000-4000-8000-000000000101') return { ...r, value: { ...v, message: { role: 'user', content: 'reworded prompt' }, parentToolUseId: 'toolu_01Task9xYe' } };
      if (v.type === 'user' && (v as { toolUseResult?: unknown }).toolUseResult) return { ...r, value: { ...v, toolUseResult: {} } };
      return r;
    });
    const out = runNormalizer(claudeCode, recs).filter((r) => r.metadata?.is_sidechain === 'true');
    assert.equal(out[0].metadata?.parent_tool_call_id, 'toolu_01Task9xYe');
  });
});

describe('claude-code normalizer, `claude -p --output-format stream-json`', () => {
  const S = '9a1f3c7e-2b4d-4e6f-8a0c-1d3e5f7a9b2c';
  const rows = runFixture(claudeCode, 'claude-code-stream.jsonl');

  it('wins detection', () => {
    assert.equal(detectFormat(fixtureRecords('claude-code-stream.jsonl').map((r) => r.value)).normalizer.id, 'claude-code');
  });

  it('one step per API response; threads chained in line order; subagent messages as their own trajectory', () => {
    const main = rows.filter((r) => r.trajectory_uid === S);
    const side = rows.filter((r) => r.trajectory_uid !== S);
    assert.equal(main.length, 3);
    assert.equal(side.length, 2);
    assert.equal(side[0].trajectory_uid, `${S}:agent-toolu_01TaskQ2`);
    assert.equal(side[0].metadata?.parent_tool_call_id, 'toolu_01TaskQ2');
    assert.equal(side[0].messages[0].content, 'List every test file in tests/ and say which one covers the CSV delimiter option.');
    assert.deepEqual(
      main[2].messages.map((m) => m.role),
      ['assistant', 'tool', 'assistant', 'tool'],
    );
    assert.deepEqual(
      main[2].messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
      ['toolu_01BashQ1', 'toolu_01TaskQ2'],
    );
    assert.equal(main[0].response?.tool_calls?.[0].function.name, 'Bash');
    assert.equal(main[0].completion_tokens, 61);
  });

  it('says the -p prompt is not in the output, and keeps init and result in metadata', () => {
    const main = rows.filter((r) => r.trajectory_uid === S);
    assert.ok(main.every((r) => r.metadata?.prompt_missing === 'true'));
    assert.equal(new Set(main.map((r) => r.prompt_uid)).size, 1);
    assert.equal(main[0].prompt_uid, `claude-code:${S}`, 'not the shared empty-prompt group');
    assert.equal(main[0].metadata?.total_cost_usd, '0.04213');
    assert.equal(main[0].metadata?.result_subtype, 'success');
    assert.deepEqual(JSON.parse(main[0].metadata?.tool_names ?? '[]').slice(0, 2), ['Task', 'Bash']);
    assert.equal(rows.find((r) => r.trajectory_uid !== S)?.metadata?.prompt_missing, undefined, 'the subagent got its prompt');
  });
});
