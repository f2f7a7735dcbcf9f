import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { codex } from '../../src/ingest/normalizers/codex';
import { fixtureRecords, runFixture, runNormalizer } from './helpers/formats';

describe('codex normalizer', () => {
  const rows = runFixture(codex, 'codex-rollout.jsonl');

  it('wins detection over the whole registry', () => {
    const d = detectFormat(fixtureRecords('codex-rollout.jsonl').map((r) => r.value));
    assert.equal(d.normalizer.id, 'codex', JSON.stringify(d.scores));
  });

  it('makes one step per model call, each closed by its token_count', () => {
    // four token_count events with usage = four calls
    assert.equal(rows.length, 4);
    assert.equal(new Set(rows.map((r) => r.trajectory_uid)).size, 1);
    assert.equal(rows[0].trajectory_uid, '0199e3a2-5c7b-7d41-9f0e-3b8a62c4d1f5');
    assert.deepEqual(
      rows.map((r) => [r.prompt_tokens, r.completion_tokens]),
      [
        [5321, 87],
        [5728, 325],
        [6154, 67],
        [6338, 52],
      ],
      'last_token_usage of each call, not the running total',
    );
    assert.deepEqual(
      rows.map((r) => r.model),
      ['gpt-5-codex', 'gpt-5-codex', 'gpt-5-codex', 'gpt-5-codex'],
    );
    assert.deepEqual(
      rows.map((r) => r.metadata?.reasoning_effort),
      ['medium', 'medium', 'medium', 'high'],
    );
    assert.equal(rows[0].provider, 'openai');
    assert.equal(rows[0].metadata?.cached_input_tokens, '4864');
    assert.equal(rows[0].source_line, 8);
  });

  it('reads reasoning, function, custom (apply_patch) and local shell calls', () => {
    const [a, b, c, d] = rows;
    assert.equal(a.response?.reasoning, '**Inspecting CLI entry point**');
    assert.deepEqual(a.response?.tool_calls?.[0], {
      id: 'call_Yk3Qp9LmT2vWs8Rb1Nc4Xe7D',
      type: 'function',
      function: { name: 'shell', arguments: '{"command":["bash","-lc","sed -n \'1,80p\' tidy_csv/cli.py"],"workdir":"/home/dev/src/tidy-csv"}' },
    });
    assert.equal(a.finish_reason, 'tool_calls');
    assert.equal(b.response?.tool_calls?.[0].function.name, 'apply_patch');
    assert.ok(JSON.parse(b.response?.tool_calls?.[0].function.arguments ?? '""').startsWith('*** Begin Patch'), 'the freeform patch, as a JSON string');
    assert.equal(c.response?.tool_calls, undefined);
    assert.ok(c.response?.content?.startsWith('Added `--delimiter`'));
    assert.equal(c.finish_reason, 'stop');
    assert.equal(d.response?.tool_calls?.[0].function.name, 'local_shell');
    assert.deepEqual(JSON.parse(d.response?.tool_calls?.[0].function.arguments ?? '{}').command, ['bash', '-lc', 'python -m pytest -q']);
  });

  it('prompts hold the instructions and every item before the call, outputs paired with calls by id', () => {
    const [a, , , d] = rows;
    assert.deepEqual(
      a.messages.map((m) => m.role),
      ['system', 'user', 'user'],
    );
    assert.ok(a.messages[0].content?.startsWith('You are Codex'));
    assert.deepEqual(
      d.messages.map((m) => m.role),
      ['system', 'user', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'user'],
    );
    const calls = d.messages.flatMap((m) => m.tool_calls ?? []).map((x) => x.id);
    assert.deepEqual(
      d.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id),
      calls,
    );
    assert.equal(d.messages.at(-1)?.content, 'yes, run the tests after');
    assert.equal(new Set(rows.map((r) => r.prompt_uid)).size, 1);
  });

  it('does not claim other formats', () => {
    assert.equal(codex.detect([{ type: 'message', role: 'user', content: 'x' }]), 0);
    assert.equal(codex.detect([{ type: 'user', uuid: 'u', parentUuid: null, message: { role: 'user', content: 'x' } }]), 0);
  });
});

describe('codex normalizer, rollouts before the {type, payload} lines', () => {
  it('reads the meta line, skips record_type lines and splits calls at inputs', () => {
    const lines = [
      { id: 'b8f2e1c0-5d3a-4e7f-9a1b-2c3d4e5f6a7b', timestamp: '2025-06-02T08:14:11.482Z', instructions: null, git: { commit_hash: 'a1b2c3d', branch: 'main' } },
      { record_type: 'state' },
      { type: 'message', id: null, role: 'user', content: [{ type: 'input_text', text: 'list the python files' }] },
      { type: 'reasoning', id: 'rs_6843a1', summary: [{ type: 'summary_text', text: '**Listing files**' }], encrypted_content: 'gAAAAAfake' },
      { type: 'function_call', id: 'fc_6843a2', name: 'shell', arguments: '{"command":["bash","-lc","ls *.py"]}', call_id: 'call_Ab12' },
      { record_type: 'state' },
      { type: 'function_call_output', call_id: 'call_Ab12', output: '{"output":"app.py\\nsetup.py\\n","metadata":{"exit_code":0,"duration_seconds":0.0}}' },
      { type: 'message', id: 'msg_6843a3', role: 'assistant', content: [{ type: 'output_text', text: 'app.py and setup.py.' }] },
    ];
    const recs = lines.map((value, index) => ({ value, line: index + 1, index }));
    assert.equal(detectFormat(lines).normalizer.id, 'codex');
    const rows = runNormalizer(codex, recs);
    assert.equal(rows.length, 2);
    assert.equal(rows[0].trajectory_uid, 'b8f2e1c0-5d3a-4e7f-9a1b-2c3d4e5f6a7b');
    assert.equal(rows[0].response?.tool_calls?.[0].id, 'call_Ab12');
    assert.deepEqual(
      rows[1].messages.map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.equal(rows[1].response_text, 'app.py and setup.py.');
    assert.equal(rows[1].prompt_tokens, null, 'no token_count in these files: no tokens invented');
  });
});

describe('codex normalizer, compaction and web search', () => {
  it('a compacted history replaces the context of the calls after it; a web search is a call without a result', () => {
    const ts = '2025-11-02T10:00:00.000Z';
    const item = (payload: Record<string, unknown>) => ({ timestamp: ts, type: 'response_item', payload });
    const usage = (i: number, o: number) => ({ timestamp: ts, type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: i, output_tokens: o } } } });
    const lines = [
      { timestamp: ts, type: 'session_meta', payload: { id: 'sess-c', cli_version: '0.58.0', model_provider: 'openai' } },
      { timestamp: ts, type: 'turn_context', payload: { model: 'gpt-5.1-codex', effort: 'low' } },
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'long task' }] }),
      item({ type: 'web_search_call', id: 'ws_01', status: 'completed', action: { type: 'search', query: 'csv sniffer header detection' } }),
      usage(900, 20),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'found it' }] }),
      usage(950, 5),
      {
        timestamp: ts,
        type: 'compacted',
        payload: { message: 'summary', replacement_history: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Summary of the work so far: found the sniffer docs.' }] }] },
      },
      item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'continue' }] }),
      item({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }),
      usage(120, 3),
    ];
    const rows = runNormalizer(
      codex,
      lines.map((value, index) => ({ value, line: index + 1, index })),
    );
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[0].response?.tool_calls?.[0], { id: 'ws_01', type: 'function', function: { name: 'web_search', arguments: '{"type":"search","query":"csv sniffer header detection"}' } });
    assert.deepEqual(
      rows[2].messages.map((m) => m.content),
      ['Summary of the work so far: found the sniffer docs.', 'continue'],
    );
    assert.equal(rows[2].metadata?.compacted, '1');
    assert.equal(rows[2].model, 'gpt-5.1-codex');
  });
});
