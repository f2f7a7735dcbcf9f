/**
 * The Codex CLI rollout normalizer (src/ingest/normalizers/codex.ts) on the lines Codex
 * writes: `{timestamp, type, payload}` with session_meta, turn_context, response_item, event_msg
 * (token_count) and compacted, and the older rollouts (a bare meta line, `record_type` lines, bare
 * items), with detection scores, how calls are split into steps and the fields of each step.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codex } from '../../src/ingest/normalizers/codex';
import type { TrajectoryDraft } from '../../src/contract/step';
import { ctx, runNormalizer } from './helpers/formats';
import { detectFormat } from '../../src/ingest/detect';

type V = Record<string, unknown>;
const T0 = Date.parse('2025-11-04T08:00:00.000Z');
const ts = (s: number) => new Date(T0 + s * 1000).toISOString();
const line = (s: number, type: string, payload: unknown) => ({ timestamp: ts(s), type, payload });
const meta = (extra: V = {}) =>
  line(0, 'session_meta', {
    id: '019a4c1e-77d2-7b30-a5e1-9c0f2b6d8e43',
    timestamp: ts(0),
    cwd: '/home/dev/app',
    originator: 'codex_cli_rs',
    cli_version: '0.55.0',
    model_provider: 'openai',
    base_instructions: { text: 'You are Codex.' },
    git: { commit_hash: '9f8e7d6', branch: 'feature/x' },
    ...extra,
  });
const turn = (s: number, extra: V = {}) => line(s, 'turn_context', { cwd: '/home/dev/app/sub', approval_policy: 'on-request', sandbox_policy: { mode: 'workspace-write' }, model: 'gpt-5-codex', effort: 'medium', ...extra });
const userMsg = (s: number, text: string) => line(s, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
const says = (s: number, text: string) => line(s, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
const call = (s: number, id: string, command: string) => line(s, 'response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', command] }), call_id: id });
const output = (s: number, id: string, out: string) => line(s, 'response_item', { type: 'function_call_output', call_id: id, output: out });
const reasoning = (s: number, text: string) => line(s, 'response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text }], content: null, encrypted_content: 'gAAAAfake' });
const tokens = (s: number, input: number, out: number, extra: V = {}) =>
  line(s, 'event_msg', { type: 'token_count', info: { total_token_usage: { input_tokens: 99999, output_tokens: 9999 }, last_token_usage: { input_tokens: input, output_tokens: out, ...extra } } });

const recs = (values: unknown[]) => values.map((value, index) => ({ value, line: index + 1, index }));
const rows = (...values: unknown[]) => runNormalizer(codex, recs(values));
function drafts(...values: unknown[]): TrajectoryDraft[] {
  const st = codex.createState!(ctx);
  for (const r of recs(values)) assert.deepEqual(codex.normalize(r, ctx, st), []);
  return codex.flush!(ctx, st) as TrajectoryDraft[];
}
const score = (...values: unknown[]) => codex.detect(values);

describe('codex normalizer: detection scores', () => {
  it('session_meta 0.99; other lines 0.95 with a text timestamp, 0.8 without', () => {
    assert.equal(score(meta()), 0.99);
    assert.equal(score(turn(1)), 0.95);
    assert.equal(score({ type: 'event_msg', payload: { type: 'token_count' } }), 0.8);
    assert.equal(score({ type: 'event_msg', timestamp: 5, payload: {} }), 0.8);
    assert.equal(score({ timestamp: ts(1), type: 'compacted' }), 0.95, 'compacted needs no payload');
  });

  it('a known line type needs a payload object; unknown types and non-lines score 0', () => {
    assert.equal(score(meta(), { timestamp: ts(1), type: 'response_item', payload: 'x' }), 0.495);
    assert.equal(score(meta(), { timestamp: ts(1), type: 'session_meta' }), 0.495);
    assert.equal(score(meta(), { timestamp: ts(1), type: 'other', payload: {} }), 0.495);
    assert.equal(score(meta(), { timestamp: ts(1), type: 3, payload: {} }), 0.495);
    assert.equal(score(meta(), 'text'), 0.495);
    assert.equal(score(meta(), null), 0.495);
    assert.match(codex.label, /^Codex CLI rollout/);
  });

  it('older rollouts: only when a record_type state line is present; record_type lines have no opinion', () => {
    const old = [{ id: 'b8f2e1c0', timestamp: ts(0), instructions: null }, { record_type: 'state' }, { type: 'message', role: 'user', content: [] }, { type: 'function_call', name: 'shell', call_id: 'c' }];
    assert.equal(score(...old), 0.9);
    assert.equal(score(...old, { other: 1 }), 0.9 * (3 / 4));
    assert.equal(score(old[0], old[2]), 0, 'no state line: not claimed');
    assert.equal(score({ record_type: 'state' }, { record_type: 'other' }), 0);
    assert.equal(score({ record_type: 'state' }, { id: 'x', timestamp: 5 }), 0);
    assert.equal(score({ record_type: 'state' }, { id: 5, timestamp: ts(0) }), 0);
    assert.equal(score({ record_type: 'state' }, { type: 5 }), 0);
    assert.equal(score({ record_type: 'state' }, { type: 'turn', id: 'x', timestamp: ts(0) }), 0);
  });

  it('a sample with new-style lines is scored by them, not the legacy rule', () => {
    assert.equal(score(meta(), { record_type: 'state' }), 0.495);
  });
});

describe('codex normalizer: records', () => {
  it('rejects what is neither a rollout line nor a legacy item', () => {
    const st = codex.createState!(ctx);
    for (const value of [5, null, 'x', { type: 'other', payload: {} }, { id: 'x' }, { id: 'x', timestamp: ts(0), type: 'meta' }])
      assert.throws(() => codex.normalize({ value, line: 1, index: 0 }, ctx, st), /expected a Codex rollout line \{timestamp, type, payload\}/, JSON.stringify(value));
  });

  it('no model call: no trajectory', () => {
    assert.deepEqual(drafts(meta(), turn(1), userMsg(2, 'hi')), []);
  });
});

describe('codex normalizer: steps', () => {
  const session = () => [
    meta(),
    userMsg(1, 'Run the tests.'),
    turn(2),
    tokens(3, 1, 1), // before any model output: no run to close
    reasoning(4, '**Running tests**'),
    call(5, 'call_1', 'pytest -q'),
    tokens(6, 5000, 80, { cached_input_tokens: 4096, reasoning_output_tokens: 64 }),
    output(7, 'call_1', '3 passed'),
    says(8, 'All 3 tests pass.'),
    tokens(9, 5200, 12),
  ];

  it('one step per model call, closed by its token_count: last_token_usage, times, line', () => {
    const d = drafts(...session());
    assert.equal(d.length, 1);
    assert.equal(d[0].trajectory_uid, '019a4c1e-77d2-7b30-a5e1-9c0f2b6d8e43');
    assert.equal(d[0].common?.agent, 'codex');
    const [a, b] = d[0].steps;
    assert.equal(d[0].steps.length, 2);
    assert.equal(a.prompt_tokens, 5000);
    assert.equal(a.completion_tokens, 80);
    assert.equal(a.started_at, T0 + 4000);
    assert.equal(a.ended_at, T0 + 6000, 'the token_count closes the call');
    assert.equal(a.source_line, 5);
    assert.equal(a.model, 'gpt-5-codex');
    assert.equal(a.provider, 'openai');
    assert.equal(a.finish_reason, 'tool_calls');
    assert.equal(a.response?.reasoning, '**Running tests**');
    assert.deepEqual(
      JSON.parse(a.raw ?? '[]').map((v: V) => (v.payload as V).type),
      ['reasoning', 'function_call', 'token_count'],
    );
    assert.equal(b.finish_reason, 'stop');
    assert.equal(b.response?.content, 'All 3 tests pass.');
    assert.equal(b.started_at, T0 + 8000);
  });

  it('metadata: session, cli, originator, cwd of the turn, git, policies, token details', () => {
    const [a, b] = drafts(...session())[0].steps;
    assert.deepEqual(a.metadata, {
      session_id: '019a4c1e-77d2-7b30-a5e1-9c0f2b6d8e43',
      cli_version: '0.55.0',
      originator: 'codex_cli_rs',
      cwd: '/home/dev/app/sub',
      git_branch: 'feature/x',
      git_commit: '9f8e7d6',
      reasoning_effort: 'medium',
      approval_policy: 'on-request',
      sandbox_policy: '{"mode":"workspace-write"}',
      cached_input_tokens: '4096',
      reasoning_output_tokens: '64',
    });
    assert.equal(b.metadata?.cached_input_tokens, undefined);
  });

  it('null and empty values are left out of the metadata', () => {
    const [a] = drafts(meta({ originator: '', cli_version: null, git: undefined }), says(1, 'x'), tokens(2, 1, 1))[0].steps;
    assert.deepEqual(a.metadata, { session_id: '019a4c1e-77d2-7b30-a5e1-9c0f2b6d8e43', cwd: '/home/dev/app' });
  });

  it('the cwd of the session when the turn has none; no git: no git metadata', () => {
    const [a] = drafts(meta({ git: 'none' }), turn(1, { cwd: undefined }), says(2, 'x'), tokens(3, 1, 1))[0].steps;
    assert.equal(a.metadata?.cwd, '/home/dev/app');
    assert.equal(a.metadata?.git_branch, undefined);
  });

  it('prompts: the base instructions and every item before the call', () => {
    const [a, b] = drafts(...session())[0].steps;
    assert.deepEqual(a.messages, [
      { role: 'system', content: 'You are Codex.' },
      { role: 'user', content: 'Run the tests.', parts: '[{"type":"input_text","text":"Run the tests."}]' },
    ]);
    assert.deepEqual(
      b.messages.map((m) => m.tool_call_id ?? m.role),
      ['system', 'user', 'assistant', 'call_1'],
    );
  });

  it('base instructions as plain text; none or empty: no system message', () => {
    const [a] = drafts(meta({ base_instructions: 'Plain instructions.' }), says(1, 'x'), tokens(2, 1, 1))[0].steps;
    assert.deepEqual(a.messages, [{ role: 'system', content: 'Plain instructions.' }]);
    const [b] = drafts(meta({ base_instructions: { text: '' } }), says(1, 'x'), tokens(2, 1, 1))[0].steps;
    assert.deepEqual(b.messages, []);
  });

  it('a new input (user message, tool output) closes a call that got no token_count', () => {
    const d = drafts(meta(), userMsg(1, 'go'), call(2, 'call_1', 'ls'), output(3, 'call_1', 'a.py'), says(4, 'a.py'), userMsg(5, 'thanks'), says(6, 'welcome'));
    assert.deepEqual(
      d[0].steps.map((s) => s.response?.content ?? s.response?.tool_calls?.[0].function.name),
      ['shell', 'a.py', 'welcome'],
    );
    assert.equal(d[0].steps[0].prompt_tokens, null);
    assert.equal(d[0].steps[0].ended_at, T0 + 2000, 'ended at its last item');
    assert.equal(d[0].steps[2].messages.at(-1)?.content, 'thanks');
  });

  it('a turn_context closes the open call; the next call uses the new turn', () => {
    const d = drafts(meta(), userMsg(1, 'go'), says(2, 'first'), turn(3, { model: 'gpt-5.1-codex', effort: 'high' }), says(4, 'second'));
    const [a, b] = d[0].steps;
    assert.equal(d[0].steps.length, 2);
    assert.equal(a.model, null, 'no turn_context before it');
    assert.equal(a.metadata?.reasoning_effort, undefined);
    assert.equal(b.model, 'gpt-5.1-codex');
    assert.equal(b.metadata?.reasoning_effort, 'high');
  });

  it('items that are neither output nor input (other events) do not close the call', () => {
    const d = drafts(meta(), userMsg(1, 'go'), call(2, 'call_1', 'ls'), line(3, 'event_msg', { type: 'agent_reasoning', text: 'x' }), line(3, 'response_item', { type: 'ghost_snapshot' }), says(4, 'done'), tokens(5, 10, 2));
    assert.equal(d[0].steps.length, 1);
    assert.equal(d[0].steps[0].response?.content, 'done');
    assert.equal(d[0].steps[0].response?.tool_calls?.length, 1);
  });

  it('only a token_count event closes a call, whatever else an event carries', () => {
    const d = drafts(meta(), userMsg(1, 'go'), says(2, 'a'), line(3, 'event_msg', { type: 'exec_command_end', call_id: 'c', info: { exit_code: 0 } }), says(4, 'b'), tokens(5, 3, 2));
    assert.equal(d[0].steps.length, 1);
    assert.equal(d[0].steps[0].response?.content, 'a\nb');
  });

  it('a token_count without info or without last usage', () => {
    const d = drafts(meta(), userMsg(1, 'go'), says(2, 'a'), line(3, 'event_msg', { type: 'token_count', info: null }), says(4, 'b'), line(5, 'event_msg', { type: 'token_count', info: { total_token_usage: {} } }));
    assert.equal(d[0].steps.length, 1, 'info null does not close the call');
    assert.equal(d[0].steps[0].response?.content, 'a\nb');
    assert.equal(d[0].steps[0].prompt_tokens, null);
    assert.equal(d[0].steps[0].ended_at, T0 + 5000);
  });

  it('a token_count without a timestamp keeps the time of the last item', () => {
    const d = drafts(meta(), userMsg(1, 'go'), says(2, 'a'), { type: 'event_msg', payload: { type: 'token_count', info: { last_token_usage: { input_tokens: 1, output_tokens: 1 } } } });
    assert.equal(d[0].steps[0].ended_at, T0 + 2000);
    const e = drafts(meta(), userMsg(1, 'go'), says(2, 'a'), { type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'b' }] } });
    assert.equal(e[0].steps[0].ended_at, T0 + 2000);
  });

  it('a resumed session keeps the first session_meta; the newer {meta, git} payload is read', () => {
    const d = drafts(meta(), line(1, 'session_meta', { id: 'other-session', cli_version: '9' }), says(2, 'x'), tokens(3, 1, 1));
    assert.equal(d[0].trajectory_uid, '019a4c1e-77d2-7b30-a5e1-9c0f2b6d8e43');
    assert.equal(d[0].steps[0].metadata?.cli_version, '0.55.0');
    const n = drafts(line(0, 'session_meta', { meta: { id: 'sess-new', cli_version: '0.60.0', model_provider: 'azure' }, git: { branch: 'dev' } }), says(1, 'x'), tokens(2, 1, 1));
    assert.equal(n[0].trajectory_uid, 'sess-new');
    assert.equal(n[0].steps[0].provider, 'azure');
    assert.equal(n[0].steps[0].metadata?.git_branch, 'dev');
  });

  it('a finish reason only when the response says something', () => {
    const d = drafts(meta(), userMsg(1, 'go'), reasoning(2, 'thinking only'), tokens(3, 1, 1));
    assert.equal(d[0].steps[0].finish_reason, null);
    assert.equal(d[0].steps[0].response?.reasoning, 'thinking only');
  });

  it('developer messages are inputs too', () => {
    const d = drafts(meta(), userMsg(1, 'go'), says(2, 'a'), line(3, 'response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'be brief' }] }), says(4, 'b'));
    assert.equal(d[0].steps.length, 2);
    assert.equal(d[0].steps[1].messages.at(-1)?.role, 'developer');
  });
});

describe('codex normalizer: tool call shapes', () => {
  it('custom (freeform) calls: the input as a JSON string, matched by call_id or id', () => {
    const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch';
    const d = drafts(
      meta(),
      userMsg(1, 'add a file'),
      line(2, 'response_item', { type: 'custom_tool_call', status: 'completed', call_id: 'call_P', name: 'apply_patch', input: patch }),
      tokens(3, 1, 1),
      line(4, 'response_item', { type: 'custom_tool_call_output', call_id: 'call_P', output: '{"output":"Success","metadata":{"exit_code":0}}' }),
      line(5, 'response_item', { type: 'custom_tool_call', id: 'ctc_2', name: 'apply_patch', input: 'second' }),
      tokens(6, 1, 1),
    );
    const [a, b] = d[0].steps;
    assert.deepEqual(a.response?.tool_calls, [{ id: 'call_P', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify(patch) } }]);
    assert.deepEqual(
      b.messages.map((m) => [m.role, m.tool_call_id ?? null]),
      [
        ['system', null],
        ['user', null],
        ['assistant', null],
        ['tool', 'call_P'],
      ],
    );
    assert.equal(b.messages[3].content, '{"output":"Success","metadata":{"exit_code":0}}');
    assert.equal(b.messages[2].tool_calls?.[0].function.arguments, JSON.stringify(patch), 'prompts too');
    assert.equal(b.response?.tool_calls?.[0].function.arguments, '"second"');
  });

  it('a freeform call with neither call_id nor id still gets its input as JSON text', () => {
    const d = drafts(meta(), userMsg(1, 'x'), line(2, 'response_item', { type: 'custom_tool_call', name: 'apply_patch', input: 'p' }), tokens(3, 1, 1), userMsg(4, 'y'), says(5, 'z'));
    assert.deepEqual(d[0].steps[0].response?.tool_calls, [{ id: null, type: 'function', function: { name: 'apply_patch', arguments: '"p"' } }]);
    assert.equal(d[0].steps[1].messages[2].tool_calls?.[0].function.arguments, '"p"', 'and in the prompts after it');
  });

  it('a freeform call without input: an empty JSON string', () => {
    const d = drafts(meta(), userMsg(1, 'x'), line(2, 'response_item', { type: 'custom_tool_call', call_id: 'call_E', name: 'apply_patch' }), tokens(3, 1, 1));
    assert.equal(d[0].steps[0].response?.tool_calls?.[0].function.arguments, '""');
  });

  it('local shell calls and outputs; a call without call_id uses its id; no action: {}', () => {
    const d = drafts(
      meta(),
      userMsg(1, 'test'),
      line(2, 'response_item', { type: 'local_shell_call', id: 'lsh_1', call_id: 'call_L', status: 'completed', action: { type: 'exec', command: ['pytest'] } }),
      tokens(3, 1, 1),
      line(4, 'response_item', { type: 'local_shell_call_output', call_id: 'call_L', output: '1 passed' }),
      line(5, 'response_item', { type: 'local_shell_call', id: 'lsh_2', status: 'completed' }),
      tokens(6, 1, 1),
    );
    const [a, b] = d[0].steps;
    assert.deepEqual(a.response?.tool_calls, [{ id: 'call_L', type: 'function', function: { name: 'local_shell', arguments: '{"type":"exec","command":["pytest"]}' } }]);
    assert.deepEqual(b.response?.tool_calls, [{ id: 'lsh_2', type: 'function', function: { name: 'local_shell', arguments: '{}' } }]);
    assert.deepEqual(
      b.messages.slice(-1).map((m) => [m.role, m.tool_call_id, m.content]),
      [['tool', 'call_L', '1 passed']],
    );
  });

  it('freeform and local shell outputs are inputs: they close a call that got no token_count', () => {
    const d = drafts(
      meta(),
      userMsg(1, 'x'),
      line(2, 'response_item', { type: 'custom_tool_call', call_id: 'call_P', name: 'apply_patch', input: 'p' }),
      line(3, 'response_item', { type: 'custom_tool_call_output', call_id: 'call_P', output: 'ok' }),
      line(4, 'response_item', { type: 'local_shell_call', call_id: 'call_L', action: { command: ['ls'] } }),
      line(5, 'response_item', { type: 'local_shell_call_output', call_id: 'call_L', output: 'a' }),
      says(6, 'done'),
    );
    assert.deepEqual(
      d[0].steps.map((s) => s.response?.tool_calls?.[0]?.function.name ?? s.response?.content),
      ['apply_patch', 'local_shell', 'done'],
    );
    assert.deepEqual(
      d[0].steps[2].messages.map((m) => m.tool_call_id ?? m.role),
      ['system', 'user', 'assistant', 'call_P', 'assistant', 'call_L'],
    );
  });

  it('a web search without an action: {} arguments', () => {
    const d = drafts(meta(), userMsg(1, 'x'), line(2, 'response_item', { type: 'web_search_call', id: 'ws_9', status: 'completed' }), tokens(3, 1, 1));
    assert.deepEqual(d[0].steps[0].response?.tool_calls, [{ id: 'ws_9', type: 'function', function: { name: 'web_search', arguments: '{}' } }]);
    assert.equal(d[0].steps[0].finish_reason, 'tool_calls');
  });
});

describe('codex normalizer: compaction', () => {
  it('without a replacement history the summary message is the context; neither: an empty context', () => {
    const d = drafts(meta(), userMsg(1, 'long task'), says(2, 'a'), tokens(3, 1, 1), line(4, 'compacted', { message: 'Summary: did a.' }), says(5, 'b'), tokens(6, 1, 1), line(7, 'compacted', {}), says(8, 'c'), tokens(9, 1, 1));
    const [, b, c] = d[0].steps;
    assert.deepEqual(b.messages, [
      { role: 'system', content: 'You are Codex.' },
      { role: 'user', content: 'Summary: did a.', parts: '[{"type":"input_text","text":"Summary: did a."}]' },
    ]);
    assert.equal(b.metadata?.compacted, '1');
    assert.deepEqual(
      c.messages.map((m) => m.role),
      ['system'],
    );
    assert.equal(c.metadata?.compacted, '2');
    assert.equal(d[0].steps[0].metadata?.compacted, undefined);
  });

  it('a compacted line closes the open call; non-object history entries are dropped', () => {
    const d = drafts(meta(), userMsg(1, 'go'), says(2, 'a'), line(3, 'compacted', { replacement_history: ['junk', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'kept' }] }] }), says(4, 'b'));
    assert.equal(d[0].steps.length, 2);
    assert.deepEqual(
      d[0].steps[1].messages.map((m) => m.content),
      ['You are Codex.', 'kept'],
    );
  });

  it('a compacted line without a payload', () => {
    const d = drafts(meta(), userMsg(1, 'go'), says(2, 'a'), { timestamp: ts(3), type: 'compacted' }, says(4, 'b'));
    assert.deepEqual(
      d[0].steps[1].messages.map((m) => m.role),
      ['system'],
    );
  });
});

describe('codex normalizer: older rollouts', () => {
  it('record_type lines are skipped; a bare meta line is the session; items are response items', () => {
    const out = rows(
      { id: 'old-sess', timestamp: ts(0), instructions: null, git: { branch: 'main' } },
      { record_type: 'state' },
      { type: 'message', id: null, role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      { type: 'local_shell_call', id: 'lsh', call_id: 'c1', action: { command: ['ls'] } },
      { record_type: 'state', extra: 1 },
      { type: 'local_shell_call_output', call_id: 'c1', output: 'x' },
      { type: 'custom_tool_call_output', call_id: 'c0', output: 'y' },
      { type: 'web_search_call', id: 'ws' },
    );
    assert.equal(out.length, 2);
    assert.equal(out[0].trajectory_uid, 'old-sess');
    assert.equal(out[0].metadata?.git_branch, 'main');
    assert.equal(out[0].response?.tool_calls?.[0].function.name, 'local_shell');
    assert.equal(out[1].response?.tool_calls?.[0].function.name, 'web_search');
    assert.deepEqual(
      out[1].messages.map((m) => m.tool_call_id ?? m.role),
      ['user', 'assistant', 'c1', 'c0'],
    );
    assert.equal(out[0].started_at, null, 'bare items carry no timestamp');
  });
});

describe('codex normalizer: other shapes', () => {
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
