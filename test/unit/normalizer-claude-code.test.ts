/**
 * The Claude Code transcript normalizer (src/ingest/normalizers/claude-code.ts) on the
 * shapes Claude Code writes: session lines chained by `parentUuid` (one line per content block of a
 * response, sharing `message.id`), summaries naming a leaf, Task sidechains (inline or in
 * `agent-<id>.jsonl`), `claude -p --output-format stream-json` lines, with detection scores and the
 * fields of each step.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { claudeCode } from '../../src/ingest/normalizers/claude-code';
import type { TrajectoryDraft } from '../../src/contract/step';
import { ctx, fixtureRecords, runFixture, runNormalizer } from './helpers/formats';
import { importWith } from './helpers/ingest-files';

const SID = '7c0e6a52-3f1d-4b8e-a9c4-2d5f8e1b0a63';
const TS = (s: number) => `2025-11-03T10:00:${String(s).padStart(2, '0')}.000Z`;

type V = Record<string, unknown>;
const user = (uuid: string, parentUuid: string | null, content: unknown, extra: V = {}): V => ({
  parentUuid,
  isSidechain: false,
  userType: 'external',
  cwd: '/home/dev/proj',
  sessionId: SID,
  version: '2.0.30',
  gitBranch: 'main',
  type: 'user',
  message: { role: 'user', content },
  uuid,
  timestamp: TS(Number(uuid.replace(/\D/g, '')) % 60),
  ...extra,
});
const usage = (output: number, extra: V = {}) => ({ input_tokens: 10, cache_creation_input_tokens: 200, cache_read_input_tokens: 3000, output_tokens: output, service_tier: 'standard', ...extra });
const asst = (uuid: string, parentUuid: string | null, id: string | null, content: unknown, extra: V = {}, message: V = {}): V => ({
  parentUuid,
  isSidechain: false,
  userType: 'external',
  cwd: '/home/dev/proj',
  sessionId: SID,
  version: '2.0.30',
  gitBranch: 'main',
  message: { model: 'claude-sonnet-4-5-20250929', ...(id === null ? {} : { id }), type: 'message', role: 'assistant', content, stop_reason: null, stop_sequence: null, usage: usage(5), ...message },
  requestId: 'req_011CUx',
  type: 'assistant',
  uuid,
  timestamp: TS(Number(uuid.replace(/\D/g, '')) % 60),
  ...extra,
});
const text = (t: string) => ({ type: 'text', text: t });
const toolUse = (id: string, name: string, input: V) => ({ type: 'tool_use', id, name, input });
const toolResult = (id: string, content: string) => ({ tool_use_id: id, type: 'tool_result', content, is_error: false });

const recs = (values: unknown[]) => values.map((value, index) => ({ value, line: index + 1, index }));
const rows = (...values: unknown[]) => runNormalizer(claudeCode, recs(values));
/** The drafts before finalize: trajectory ids and metadata as the normalizer made them. */
function drafts(...values: unknown[]): TrajectoryDraft[] {
  const st = claudeCode.createState!(ctx);
  for (const r of recs(values)) assert.deepEqual(claudeCode.normalize(r, ctx, st), []);
  return claudeCode.flush!(ctx, st) as TrajectoryDraft[];
}
const score = (...values: unknown[]) => claudeCode.detect(values);
/** No opinion (null): the mean is that of the other record, whichever it is (a numeric score would move one of them). */
function noOpinion(v: unknown) {
  assert.equal(score({ type: 'summary', summary: 'T', leafUuid: 'u1' }, v), 0.9, JSON.stringify(v));
  assert.equal(score({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: SID, message: { role: 'user', content: 'x' } }, v), 0.98, JSON.stringify(v));
}

/** A short session: prompt, a response spread over two lines (text + tool_use), the result, a final answer. */
const session = () => [
  user('u1', null, 'Count the lines of README.md'),
  asst('a2', 'u1', 'msg_A', [text('I will count them.')]),
  asst('a3', 'a2', 'msg_A', [toolUse('toolu_1', 'Bash', { command: 'wc -l README.md' })], {}, { stop_reason: 'tool_use', usage: usage(40) }),
  user('u4', 'a3', [toolResult('toolu_1', '42 README.md')]),
  asst('a5', 'u4', 'msg_B', [text('README.md has 42 lines.')], {}, { stop_reason: 'end_turn', usage: usage(12) }),
];

describe('claude-code normalizer: detection scores', () => {
  const summary = { type: 'summary', summary: 'Title', leafUuid: 'u1' };
  it('session lines: 0.98 with a sessionId, 0.9 without; a summary naming a leaf 0.9', () => {
    assert.equal(score(user('u1', null, 'x')), 0.98);
    assert.equal(score(asst('a1', null, 'm', [])), 0.98);
    assert.equal(score({ ...user('u1', null, 'x'), sessionId: undefined }), 0.9);
    assert.equal(score({ ...user('u1', null, 'x'), sessionId: 7 }), 0.9);
    assert.equal(score(summary), 0.9);
  });

  it('a session line needs a string uuid, a parentUuid key and a message object', () => {
    // without them a user line is still a known entry type: 0.9 when it has uuid + parentUuid, else no opinion
    assert.equal(score({ ...user('u1', null, 'x'), message: 'x' }), 0.9);
    noOpinion({ type: 'user', uuid: 'u1', sessionId: SID, message: { role: 'user', content: 'x' } });
    noOpinion({ type: 'user', uuid: 5, parentUuid: null, sessionId: SID, message: { role: 'user', content: 'x' } });
    noOpinion({ type: 'assistant', parentUuid: null, sessionId: SID, message: {} });
  });

  it('other entries with uuid + parentUuid score 0.9; snapshots and queue entries have no opinion', () => {
    assert.equal(score({ type: 'progress', uuid: 'p1', parentUuid: 'a1' }), 0.9);
    assert.equal(score({ type: 'attachment', uuid: 'p1', parentUuid: null }), 0.9);
    noOpinion({ type: 'progress', uuid: 'p1' });
    noOpinion({ type: 'progress', parentUuid: 'x' });
    noOpinion({ type: 'file-history-snapshot', messageId: 'u1', snapshot: {} });
    noOpinion({ type: 'queue-operation', operation: 'enqueue' });
    noOpinion({ type: 'queue-operation', operation: 'enqueue', leafUuid: 'u1' });
    assert.equal(score({ type: 'file-history-snapshot', messageId: 'u1' }), 0);
  });

  it('a summary without a string leafUuid has no opinion', () => {
    noOpinion({ type: 'summary', summary: 'T' });
    noOpinion({ type: 'summary', summary: 'T', leafUuid: 3 });
    assert.match(claudeCode.label, /^Claude Code/);
  });

  it('unknown entry types and non-entries score 0', () => {
    assert.equal(score(summary, { type: 'message', role: 'user' }), 0.45);
    assert.equal(score(summary, { type: 7 }), 0.45);
    assert.equal(score(summary, 'text'), 0.45);
    assert.equal(score(summary, null), 0.45);
    assert.equal(score(summary, { uuid: 'u', parentUuid: null }), 0.45);
  });

  it('stream-json: init, result and messages with parent_tool_use_id 0.95; other system lines no opinion', () => {
    const s = 'sess-stream';
    const init = { type: 'system', subtype: 'init', session_id: s, tools: [] };
    assert.equal(score(init), 0.95);
    assert.equal(score({ type: 'result', subtype: 'success', session_id: s }), 0.95);
    assert.equal(score({ type: 'assistant', message: { role: 'assistant', content: [] }, parent_tool_use_id: null, session_id: s }), 0.95);
    assert.equal(score({ type: 'user', message: { role: 'user', content: 'x' }, parent_tool_use_id: 'toolu_1', session_id: s }), 0.95);
    noOpinion({ type: 'system', subtype: 'compact_boundary', session_id: s });
    // no session_id, a parentUuid, no parent_tool_use_id or no message object: not a stream line
    noOpinion({ type: 'system', subtype: 'init' });
    noOpinion({ type: 'result', subtype: 'success' });
    noOpinion({ type: 'result', subtype: 'success', session_id: s, parentUuid: null });
    noOpinion({ type: 'result', subtype: 'success', session_id: 5 });
    noOpinion({ type: 'assistant', message: { role: 'assistant', content: [] }, session_id: s });
    noOpinion({ type: 'assistant', message: 'x', parent_tool_use_id: null, session_id: s });
    noOpinion({ type: 'summary', session_id: s });
    noOpinion({ type: 'progress', session_id: s });
  });

  it('system and result lines with uuid + parentUuid (session hook lines) still have no opinion', () => {
    noOpinion({ type: 'system', subtype: 'x', uuid: 'p1', parentUuid: 'p' });
    noOpinion({ type: 'result', uuid: 'p1', parentUuid: 'p' });
  });

  it('only user and assistant lines score as conversation lines', () => {
    assert.equal(score({ type: 'progress', uuid: 'p', parentUuid: 'a1', sessionId: SID, message: { role: 'assistant', content: [] } }), 0.9);
  });
});

describe('claude-code normalizer: records', () => {
  it('rejects a value that is not an entry with a string type', () => {
    const st = claudeCode.createState!(ctx);
    for (const value of [5, 'x', null, [], { uuid: 'u1' }, { type: 3, uuid: 'u1' }])
      assert.throws(() => claudeCode.normalize({ value, line: 1, index: 0 }, ctx, st), /expected a Claude Code transcript entry with a "type"/);
  });

  it('skips entries without a uuid and repeated uuids (a resumed session repeats earlier lines)', () => {
    const s = session();
    const d = drafts({ type: 'file-history-snapshot', messageId: 'u1', snapshot: {} }, ...s, { ...s[4], message: { ...(s[4].message as V), id: 'msg_C', content: [text('a repeat')] } });
    assert.equal(d.length, 1);
    assert.equal(d[0].steps.length, 2);
    assert.equal(d[0].steps[1].response?.content, 'README.md has 42 lines.');
    assert.equal(d[0].steps[0].source_line, 3, 'line of the response’s first line (the snapshot is line 1)');
  });
});

describe('claude-code normalizer: steps', () => {
  const [s0, s1] = rows(...session());

  it('lines sharing message.id are one step: blocks merged, the largest usage, the last stop reason', () => {
    assert.equal(s0.response?.content, 'I will count them.');
    assert.deepEqual(s0.response?.tool_calls, [{ id: 'toolu_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"wc -l README.md"}' } }]);
    assert.equal(s0.completion_tokens, 40);
    assert.equal(s0.prompt_tokens, 10 + 200 + 3000);
    assert.equal(s0.finish_reason, 'tool_calls');
    assert.equal(s0.metadata?.stop_reason, 'tool_use');
    assert.equal(s0.metadata?.message_id, 'msg_A');
    assert.equal(s0.metadata?.uuid, 'a3', 'uuid of the last line');
    assert.equal(s0.started_at, Date.parse(TS(2)));
    assert.equal(s0.ended_at, Date.parse(TS(3)));
    assert.equal(s0.source_line, 2);
    assert.deepEqual(
      JSON.parse(s0.raw ?? '[]').map((v: V) => v.uuid),
      ['a2', 'a3'],
    );
  });

  it('metadata: session, request, cwd, branch, version, cache tokens, service tier', () => {
    assert.equal(s0.metadata?.session_id, SID);
    assert.equal(s0.metadata?.request_id, 'req_011CUx');
    assert.equal(s0.metadata?.cwd, '/home/dev/proj');
    assert.equal(s0.metadata?.git_branch, 'main');
    assert.equal(s0.metadata?.version, '2.0.30');
    assert.equal(s0.metadata?.cache_creation_input_tokens, '200');
    assert.equal(s0.metadata?.cache_read_input_tokens, '3000');
    assert.equal(s0.metadata?.service_tier, 'standard');
    assert.equal(s0.metadata?.is_sidechain, undefined);
    assert.equal(s0.metadata?.session_title, undefined);
    assert.equal(s0.provider, 'anthropic');
    assert.equal(s0.model, 'claude-sonnet-4-5-20250929');
    assert.equal(s0.status, 'ok');
    assert.equal(s0.trajectory_uid, SID);
    assert.equal(s0.agent, 'claude-code');
  });

  it('the prompt is the parentUuid chain; the next step sees the merged response and the tool result', () => {
    assert.deepEqual(s0.messages, [{ role: 'user', content: 'Count the lines of README.md' }]);
    assert.deepEqual(
      s1.messages.map((m) => [m.role, m.content, m.tool_call_id ?? null]),
      [
        ['user', 'Count the lines of README.md', null],
        ['assistant', 'I will count them.', null],
        ['tool', '42 README.md', 'toolu_1'],
      ],
    );
    assert.equal(s1.messages[1].tool_calls?.length, 1);
    assert.equal(s1.finish_reason, 'stop');
    assert.equal(s1.metadata?.stop_reason, 'end_turn');
    assert.equal(s1.step_index, 1);
  });

  it('usage: the line with the most output tokens; at a tie the later line', () => {
    const [a] = rows(
      user('u1', null, 'hi'),
      asst('a2', 'u1', 'msg_A', [text('one')], {}, { usage: usage(5, { service_tier: 'first' }) }),
      asst('a3', 'a2', 'msg_A', [text(' two')], {}, { usage: usage(5, { service_tier: 'second' }) }),
      asst('a4', 'a3', 'msg_A', [text(' three')], {}, { usage: usage(2, { service_tier: 'third', input_tokens: 99 }) }),
    );
    assert.equal(a.response?.content, 'one two three');
    assert.equal(a.metadata?.service_tier, 'second');
    assert.equal(a.prompt_tokens, 3210);
  });

  it('a line without usage', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { usage: undefined }), asst('a3', 'a2', 'msg_A', [text('y')], {}, { usage: usage(4) }));
    assert.equal(a.completion_tokens, 4);
  });

  it('usage that is not an object is skipped; no usage: no tokens', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { usage: 'n/a' }));
    assert.equal(a.prompt_tokens, null);
    assert.equal(a.completion_tokens, null);
    const [b] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { usage: { output_tokens: 3 } }));
    assert.equal(b.prompt_tokens, null, 'no input_tokens: cache counts alone are not a prompt size');
    assert.equal(b.completion_tokens, 3);
    const [c] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { usage: { input_tokens: 7, output_tokens: 3 } }));
    assert.equal(c.prompt_tokens, 7);
    assert.equal(c.metadata?.cache_read_input_tokens, undefined);
  });

  it('a later usage without output_tokens does not replace one that has them', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { usage: usage(0) }), asst('a3', 'a2', 'msg_A', [text('y')], {}, { usage: { input_tokens: 99 } }));
    assert.equal(a.prompt_tokens, 3210);
    assert.equal(a.completion_tokens, 0);
  });

  it('lines of one response written out of order: the step starts at the line whose parent is outside it', () => {
    const s = session();
    const [a] = rows(s[0], s[2], s[1], s[3], s[4]);
    assert.deepEqual(a.messages, [{ role: 'user', content: 'Count the lines of README.md' }]);
    assert.equal(a.metadata?.uuid, 'a2', 'uuid of the last line in the file');
  });

  it('a main step’s metadata, whole', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { stop_reason: 'end_turn' }));
    assert.deepEqual(a.metadata, {
      session_id: SID,
      message_id: 'msg_A',
      request_id: 'req_011CUx',
      uuid: 'a2',
      cwd: '/home/dev/proj',
      git_branch: 'main',
      version: '2.0.30',
      cache_creation_input_tokens: '200',
      cache_read_input_tokens: '3000',
      service_tier: 'standard',
      stop_reason: 'end_turn',
    });
  });

  it('a usage without output_tokens still counts when it is the only one', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { usage: { input_tokens: 7 } }));
    assert.equal(a.prompt_tokens, 7);
  });

  it('the stop reason: the last line that has one; unmapped reasons kept as they are', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { stop_reason: 'max_tokens' }), asst('a3', 'a2', 'msg_A', [text('y')]));
    assert.equal(a.finish_reason, 'length');
    const [b] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { stop_reason: 'brand_new_reason' }));
    assert.equal(b.finish_reason, 'brand_new_reason');
    // no line says (Claude Code 2.x writes stop_reason null on every line): inferred from the response, and flagged
    const [c] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')]));
    assert.deepEqual([c.finish_reason, c.metadata?.finish_reason_inferred], ['stop', 'true']);
    const [d] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')]), asst('a3', 'a2', 'msg_A', [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} }]));
    assert.deepEqual([d.finish_reason, d.metadata?.finish_reason_inferred], ['tool_calls', 'true']);
    assert.equal(a.metadata?.finish_reason_inferred, undefined);
    const [e] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], {}, { stop_reason: 'tool_use' }), asst('a3', 'a2', 'msg_A', [text('y')], {}, { stop_reason: 'end_turn' }));
    assert.equal(e.finish_reason, 'stop', 'the later line');
    assert.equal(c.metadata?.stop_reason, undefined);
  });

  it('older versions repeat earlier blocks on each line: each block counted once', () => {
    const think = { type: 'thinking', thinking: 'plan', signature: 'sig' };
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [think]), asst('a3', 'a2', 'msg_A', [think, text('answer')]));
    assert.equal(a.response?.reasoning, 'plan');
    assert.equal(a.response?.content, 'answer');
    assert.equal(JSON.parse(a.response?.parts ?? '[]').length, 2);
  });

  it('string message content is one text block; null or missing content is no block', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', 'plain answer'));
    assert.equal(a.response?.content, 'plain answer');
    assert.deepEqual(JSON.parse(a.response?.parts ?? '[]'), [{ type: 'text', text: 'plain answer' }]);
    const [b] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', null), asst('a3', 'a2', 'msg_A', [text('after')]));
    assert.deepEqual(JSON.parse(b.response?.parts ?? '[]'), [{ type: 'text', text: 'after' }]);
    const noContent = asst('a2', 'u1', 'msg_A', []);
    delete (noContent.message as V).content;
    const [c] = rows(user('u1', null, 'hi'), noContent, asst('a3', 'a2', 'msg_A', [text('after')]));
    assert.equal(c.response?.content, 'after');
    assert.deepEqual(JSON.parse(c.response?.parts ?? '[]'), [{ type: 'text', text: 'after' }]);
  });

  it('a provider only for Anthropic request ids; an API error line is an error step', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], { requestId: 'gw-123' }));
    assert.equal(a.provider, null);
    assert.equal(a.metadata?.request_id, 'gw-123');
    const [b] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('API Error: 529 Overloaded')], { isApiErrorMessage: true }));
    assert.equal(b.status, 'error');
    const [c] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], { isApiErrorMessage: 'true' }));
    assert.equal(c.status, 'ok');
    const [e] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [text('x')], { requestId: undefined, cwd: '' }));
    assert.equal(e.provider, null);
    assert.equal(e.metadata?.request_id, undefined);
    assert.equal(e.metadata?.cwd, undefined, 'empty values are left out');
  });

  it('synthetic lines (model <synthetic>) are neither steps nor prompt messages', () => {
    const out = rows(
      user('u1', null, 'hi'),
      asst('a2', 'u1', 'msg_S', [text('No response requested.')], {}, { model: '<synthetic>' }),
      user('u3', 'a2', 'again'),
      asst('a4', 'u3', 'msg_A', [text('hello')]),
    );
    assert.equal(out.length, 1);
    assert.deepEqual(
      out[0].messages.map((m) => m.content),
      ['hi', 'again'],
    );
  });

  it('lines without message.id are grouped by uuid: each its own step', () => {
    const out = rows(user('u1', null, 'hi'), asst('a2', 'u1', null, [text('one')]), asst('a3', 'a2', null, [text('two')]), asst('a4', 'a3', null, [text('three')]));
    assert.deepEqual(
      out.map((r) => r.response?.content),
      ['one', 'two', 'three'],
    );
    assert.deepEqual(
      out[2].messages.map((m) => m.content),
      ['hi', 'one', 'two'],
      'without an id consecutive lines are not merged',
    );
    assert.equal(out[0].metadata?.message_id, undefined);
  });

  it('a user line without a message object and non-entries are not in the prompt', () => {
    const out = rows(user('u1', null, 'hi'), { type: 'user', uuid: 'u2', parentUuid: 'u1', content: 'stray' }, asst('a3', 'u2', 'msg_A', [text('x')]));
    assert.deepEqual(out[0].messages, [{ role: 'user', content: 'hi' }]);
  });

  it('a parentUuid cycle ends the chain instead of looping', () => {
    const out = rows(user('u1', 'a2', 'hi'), asst('a2', 'u1', 'msg_A', [text('x')]), asst('a3', 'a2', 'msg_B', [text('y')]));
    assert.equal(out.length, 2);
    assert.deepEqual(
      out[1].messages.map((m) => m.content),
      ['hi', 'x'],
    );
  });

  it('an assistant line merges only with the next lines of the same message in the chain', () => {
    const out = rows(
      user('u1', null, 'hi'),
      asst('a2', 'u1', 'msg_A', [text('a')]),
      asst('a3', 'a2', 'msg_B', [text('b')]),
      asst('a4', 'a3', 'msg_B', [text('c')]),
      asst('a5', 'a4', 'msg_C', [text('d')]),
    );
    assert.deepEqual(
      out.map((r) => r.response?.content),
      ['a', 'bc', 'd'],
    );
    assert.deepEqual(
      out[2].messages.map((m) => m.content),
      ['hi', 'a', 'bc'],
    );
  });
});

describe('claude-code normalizer: tool results that branched off the chain', () => {
  it('parallel calls: a result on another branch is put back after its call, once', () => {
    const out = rows(
      user('u1', null, 'read both'),
      asst('a2', 'u1', 'msg_A', [toolUse('toolu_1', 'Read', { file_path: 'a' })]),
      asst('a3', 'a2', 'msg_A', [toolUse('toolu_2', 'Read', { file_path: 'b' })]),
      user('u4', 'a3', [toolResult('toolu_1', 'A')]),
      user('u5', 'a3', [toolResult('toolu_2', 'B')]),
      asst('a6', 'u5', 'msg_B', [text('both read')]),
    );
    assert.equal(out.length, 2);
    assert.deepEqual(
      out[1].messages.map((m) => [m.role, m.tool_call_id ?? null, m.content]),
      [
        ['user', null, 'read both'],
        ['assistant', null, null],
        ['tool', 'toolu_2', 'B'],
        ['tool', 'toolu_1', 'A'],
      ],
    );
  });

  it('a call id repeated in one response gets its branched result once', () => {
    const out = rows(
      user('u1', null, 'go'),
      asst('a2', 'u1', 'msg_A', [toolUse('toolu_1', 'Read', { file_path: 'a' })]),
      asst('a3', 'a2', 'msg_A', [toolUse('toolu_1', 'Read', { file_path: 'a', limit: 10 })]),
      user('u4', 'a2', [toolResult('toolu_1', 'A')]),
      user('u5', 'a3', [text('go on')]),
      asst('a6', 'u5', 'msg_B', [text('ok')]),
    );
    assert.deepEqual(
      out[1].messages.map((m) => m.tool_call_id ?? m.role),
      ['user', 'assistant', 'toolu_1', 'user'],
    );
  });

  it('a secret in a line is not kept in raw', () => {
    const [a] = rows(user('u1', null, 'hi'), asst('a2', 'u1', 'msg_A', [toolUse('toolu_1', 'Bash', { command: 'export ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789' })]));
    assert.ok(!(a.raw ?? '').includes('abcdefghijklmnopqrstuvwxyz0123456789'), a.raw ?? '');
  });

  it('a call with no result anywhere gets none; a call without an id is left alone', () => {
    const noId = { type: 'tool_use', name: 'Read', input: { file_path: 'c' } };
    const out = rows(user('u1', null, 'go'), asst('a2', 'u1', 'msg_A', [toolUse('toolu_1', 'Read', { file_path: 'a' }), noId]), user('u3', 'a2', 'never mind'), asst('a4', 'u3', 'msg_B', [text('ok')]));
    assert.deepEqual(
      out[1].messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
  });

  it('results already answered in the chain are not repeated', () => {
    const out = rows(
      user('u1', null, 'go'),
      asst('a2', 'u1', 'msg_A', [toolUse('toolu_1', 'Read', { file_path: 'a' })]),
      user('u3', 'a2', [toolResult('toolu_1', 'A')]),
      asst('a4', 'u3', 'msg_B', [toolUse('toolu_2', 'Read', { file_path: 'b' })]),
      user('u5', 'a4', [toolResult('toolu_2', 'B')]),
      asst('a6', 'u5', 'msg_C', [text('done')]),
    );
    assert.deepEqual(
      out[2].messages.map((m) => m.tool_call_id ?? m.role),
      ['user', 'assistant', 'toolu_1', 'assistant', 'toolu_2'],
    );
  });

  it('a result line that is a user text (no tool_result) is not a result', () => {
    const out = rows(
      user('u1', null, 'go'),
      asst('a2', 'u1', 'msg_A', [toolUse('toolu_1', 'Read', { file_path: 'a' })]),
      user('u3', 'a2', [text('interrupted')]),
      { ...user('u9', 'a2', [toolResult('toolu_1', 'A')]), message: 'not an object' },
      asst('a4', 'u3', 'msg_B', [text('ok')]),
    );
    assert.deepEqual(
      out[1].messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    );
  });
});

describe('claude-code normalizer: session titles', () => {
  it('a summary titles every step on the chain to its leaf; summaries without leaf or text are ignored', () => {
    const d = drafts({ type: 'summary', summary: 'Count README lines', leafUuid: 'a5' }, { type: 'summary', summary: '', leafUuid: 'a5' }, { type: 'summary', summary: 'no leaf' }, ...session());
    assert.deepEqual(
      d[0].steps.map((s) => s.metadata?.session_title),
      ['Count README lines', 'Count README lines'],
    );
    const other = drafts({ type: 'summary', summary: 'Only the first', leafUuid: 'a3' }, ...session());
    assert.deepEqual(
      other[0].steps.map((s) => s.metadata?.session_title),
      ['Only the first', undefined],
    );
  });
});

describe('claude-code normalizer: sidechains', () => {
  const task = toolUse('toolu_T', 'Task', { description: 'find tests', prompt: '  List the test files.  ', subagent_type: 'general-purpose' });
  const main = [
    user('u1', null, 'Where are the tests?'),
    asst('a2', 'u1', 'msg_A', [task], {}, { stop_reason: 'tool_use' }),
    user('u3', 'a2', [toolResult('toolu_T', 'tests/ has test_a.py')]),
    asst('a4', 'u3', 'msg_B', [text('In tests/.')], {}, { stop_reason: 'end_turn' }),
  ];
  const side = (agentId: string | undefined, extra: V = {}) => [
    user('s1', null, ' List the test files.\n', { isSidechain: true, agentId, ...extra }),
    asst('s2', 's1', 'msg_S1', [toolUse('toolu_G', 'Glob', { pattern: 'tests/*' })], { isSidechain: true, agentId }, { model: 'claude-haiku-4-5-20251001' }),
    user('s3', 's2', [toolResult('toolu_G', 'tests/test_a.py')], { isSidechain: true, agentId }),
    asst('s4', 's3', 'msg_S2', [text('tests/test_a.py')], { isSidechain: true, agentId }, { model: 'claude-haiku-4-5-20251001' }),
  ];

  it('an inline sidechain with an agentId: its own trajectory, linked by the Task prompt (trimmed)', () => {
    const d = drafts(...main, ...side('a1b2c3'));
    assert.deepEqual(
      d.map((t) => t.trajectory_uid),
      [SID, `${SID}:agent-a1b2c3`],
    );
    const sm = d[1].steps[0].metadata;
    assert.equal(sm?.parent_trajectory_uid, SID);
    assert.equal(sm?.agent_id, 'a1b2c3');
    assert.equal(sm?.parent_tool_call_id, 'toolu_T');
    assert.equal(sm?.is_sidechain, 'true');
    assert.deepEqual(
      d[1].steps[1].messages.map((m) => m.role),
      ['user', 'assistant', 'tool'],
    );
    assert.equal(d[0].steps[0].metadata?.subagent_trajectory_uids, undefined, 'no toolUseResult.agentId: not named');
  });

  it('without an agentId the sidechain is named after its root line', () => {
    const snapshot = { type: 'file-history-snapshot', messageId: 's1', snapshot: { messageId: 's1', trackedFileBackups: {} }, isSnapshotUpdate: false };
    const d = drafts(snapshot, ...main, ...side(undefined));
    assert.equal(d[1].trajectory_uid, `${SID}:sidechain-s1`, 'a snapshot line (no uuid) is no root');
    assert.equal(d[1].steps[0].metadata?.agent_id, undefined);
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, 'toolu_T');
  });

  it('a sidechain whose prompt matches no Task call has no parent call; Task calls of sidechains do not count', () => {
    const nested = [
      asst('n1', null, 'msg_N', [toolUse('toolu_N', 'Task', { prompt: 'List the test files.' })], { isSidechain: true }),
      user('s1', null, 'List the test files.', { isSidechain: true }),
      asst('s2', 's1', 'msg_S1', [text('done')], { isSidechain: true }),
    ];
    const d = drafts(user('u1', null, 'go'), asst('a2', 'u1', 'msg_A', [text('no task')]), ...nested);
    const s = d.find((t) => t.trajectory_uid === `${SID}:sidechain-s1`);
    assert.equal(s?.steps[0].metadata?.parent_tool_call_id, undefined);
  });

  it('a Task call without an id links nothing', () => {
    const d = drafts(user('u1', null, 'go'), asst('a2', 'u1', 'msg_A', [{ type: 'tool_use', name: 'Task', input: { prompt: 'List the test files.' } }]), ...side(undefined).slice(0, 2));
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, undefined);
  });

  it('a sidechain that starts with a progress line: the prompt is its first user line', () => {
    const progress = { type: 'progress', uuid: 's0', parentUuid: null, isSidechain: true, sessionId: SID, data: { type: 'hook_progress' } };
    const s = side(undefined).map((v) => (v.uuid === 's1' ? { ...v, parentUuid: 's0' } : v));
    const d = drafts(...main, progress, ...s);
    assert.equal(d[1].trajectory_uid, `${SID}:sidechain-s0`);
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, 'toolu_T');
  });

  it('a Task call whose prompt is not text is not a link', () => {
    const d = drafts(user('u1', null, 'go'), asst('a2', 'u1', 'msg_A', [toolUse('toolu_X', 'Task', { prompt: ['List the test files.'] })]), ...side(undefined).slice(0, 2));
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, undefined);
    const e = drafts(user('u1', null, 'go'), asst('a2', 'u1', 'msg_A', [{ type: 'tool_use', id: 'toolu_X', name: 'Task', input: 'List the test files.' }]), ...side(undefined).slice(0, 2));
    assert.equal(e[1].steps[0].metadata?.parent_tool_call_id, undefined);
    const f = drafts(user('u1', null, 'go'), asst('a2', 'u1', 'msg_A', [{ type: 'server_tool_use', id: 'toolu_X', name: 'Task', input: { prompt: 'List the test files.' } }]), ...side(undefined).slice(0, 2));
    assert.equal(f[1].steps[0].metadata?.parent_tool_call_id, undefined);
  });

  it('newer versions: the Task result names the agent (toolUseResult.agentId), both ways', () => {
    const named = main.map((v) => (v.uuid === 'u3' ? { ...v, toolUseResult: { agentId: 'a1b2c3', status: 'completed' } } : v));
    // the sidechain's prompt differs from the Task prompt: only the agent id links them
    const s = side('a1b2c3').map((v) => (v.uuid === 's1' ? { ...v, message: { role: 'user', content: 'reworded' } } : v));
    const d = drafts(...named, ...s);
    assert.deepEqual(JSON.parse(d[0].steps[0].metadata?.subagent_trajectory_uids ?? 'null'), [`${SID}:agent-a1b2c3`]);
    assert.equal(d[0].steps[1].metadata?.subagent_trajectory_uids, undefined);
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, 'toolu_T');
  });

  it('a toolUseResult without a string agentId, or on a line without tool_result blocks, links nothing', () => {
    for (const change of [{ toolUseResult: { agentId: 7 } }, { toolUseResult: 'a1b2c3' }, { message: { role: 'user', content: 'toolu_T' } }, { message: { role: 'user', content: [text('x'), null, 'toolu_T', { type: 'tool_result', tool_use_id: 9 }] } }]) {
      const named = main.map((v) => (v.uuid === 'u3' ? { ...v, toolUseResult: { agentId: 'a1b2c3' }, ...change } : v));
      const s = side('a1b2c3').map((v) => (v.uuid === 's1' ? { ...v, message: { role: 'user', content: 'reworded' } } : v));
      const d = drafts(...named, ...s);
      assert.equal(d[0].steps[0].metadata?.subagent_trajectory_uids, undefined, JSON.stringify(change));
      assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, undefined, JSON.stringify(change));
    }
  });

  it('an assistant line carrying toolUseResult is not a Task result', () => {
    const named = main.map((v) => (v.uuid === 'a4' ? { ...v, toolUseResult: { agentId: 'a1b2c3' }, message: { ...(v.message as V), content: [{ type: 'tool_result', tool_use_id: 'toolu_T' }] } } : v));
    const s = side('a1b2c3').map((v) => (v.uuid === 's1' ? { ...v, message: { role: 'user', content: 'reworded' } } : v));
    const d = drafts(...named, ...s);
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, undefined);
  });

  it('a parentToolUseId on the sidechain wins over the agent id and the prompt', () => {
    const named = main.map((v) => (v.uuid === 'u3' ? { ...v, toolUseResult: { agentId: 'a1b2c3' } } : v));
    const d = drafts(...named, ...side('a1b2c3', { parentToolUseId: 'toolu_EXPLICIT' }));
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, 'toolu_EXPLICIT');
  });

  it('the agent id wins over the prompt', () => {
    const named = [...main, user('u5', 'a4', [toolResult('toolu_OTHER', 'x')], { toolUseResult: { agentId: 'a1b2c3' } })];
    const d = drafts(...named, ...side('a1b2c3'));
    assert.equal(d[1].steps[0].metadata?.parent_tool_call_id, 'toolu_OTHER');
  });

  it('a session without a sessionId: sidechains under "session", the main chain one trajectory', () => {
    const strip = (v: V) => ({ ...v, sessionId: undefined });
    const d = drafts(...main.map(strip), ...side('a1b2c3').map(strip));
    assert.deepEqual(
      d.map((t) => t.trajectory_uid),
      [null, 'session:agent-a1b2c3'],
    );
    assert.equal(d[0].steps.length, 2, 'the main chain is one trajectory, not one per step (bug: each step was its own)');
    assert.equal(d[1].steps[0].metadata?.parent_trajectory_uid, undefined);
  });

  it('without a sessionId, two conversations (two roots) stay two trajectories', () => {
    const strip = (v: V) => ({ ...v, sessionId: undefined });
    const again = main.map((v) => strip({ ...v, uuid: `r${v.uuid}`, parentUuid: v.parentUuid === null ? null : `r${v.parentUuid}`, message: { ...(v.message as V), id: `${(v.message as V).id ?? ''}2` } }));
    const d = drafts(...main.map(strip), ...again);
    assert.deepEqual(
      d.map((t) => t.steps.length),
      [2, 2],
    );
    assert.equal(d[1].steps[1].messages.length, 3);
  });

  it('subagent ids of a session without a sessionId', () => {
    const strip = (v: V) => ({ ...v, sessionId: undefined });
    const named = main.map((v) => strip(v.uuid === 'u3' ? { ...v, toolUseResult: { agentId: 'a1b2c3' } } : v));
    const d = drafts(...named);
    assert.deepEqual(JSON.parse(d[0].steps[0].metadata?.subagent_trajectory_uids ?? 'null'), ['session:agent-a1b2c3']);
  });

  it('a sidechain whose first line is an assistant line: named after it, no prompt to match', () => {
    const d = drafts(asst('s2', null, 'msg_S1', [text('x')], { isSidechain: true }));
    assert.equal(d[0].trajectory_uid, `${SID}:sidechain-s2`);
    assert.equal(d[0].steps[0].metadata?.parent_tool_call_id, undefined);
  });
});

describe('claude-code normalizer: stream-json', () => {
  const S = 'd41e9a07-6b3c-4f2e-8d15-0a9c7b3e5f21';
  const init = { type: 'system', subtype: 'init', cwd: '/w', session_id: S, tools: ['Task', 'Bash'], model: 'claude-sonnet-4-5-20250929', permissionMode: 'default', claude_code_version: '2.0.30' };
  const a = (id: string, content: unknown[], parent: string | null = null, extra: V = {}) => ({
    type: 'assistant',
    message: { model: 'claude-sonnet-4-5-20250929', id, type: 'message', role: 'assistant', content, stop_reason: null, usage: { input_tokens: 3, output_tokens: 9 }, ...extra },
    parent_tool_use_id: parent,
    session_id: S,
  });
  const u = (content: unknown, parent: string | null = null) => ({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: parent, session_id: S });
  const result = { type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 4, total_cost_usd: 0.0123, duration_ms: 8100, session_id: S };
  const stream = () => [
    init,
    { type: 'system', subtype: 'compact_boundary', session_id: S },
    a('msg_1', [toolUse('toolu_B', 'Bash', { command: 'ls' })]),
    u([toolResult('toolu_B', 'a.txt')]),
    a('msg_2', [toolUse('toolu_T', 'Task', { prompt: 'look' })]),
    u([text('look')], 'toolu_T'),
    a('msg_S', [text('looked')], 'toolu_T'),
    u([toolResult('toolu_T', 'looked')]),
    a('msg_3', [text('done')]),
    result,
  ];

  it('threads chain in line order; a subagent thread is a sidechain linked to its Task call', () => {
    const d = drafts(...stream());
    assert.deepEqual(
      d.map((t) => t.trajectory_uid),
      [S, `${S}:agent-toolu_T`],
    );
    assert.deepEqual(
      d[0].steps[2].messages.map((m) => m.tool_call_id ?? m.role),
      ['assistant', 'toolu_B', 'assistant', 'toolu_T'],
    );
    const sm = d[1].steps[0].metadata;
    assert.equal(sm?.parent_tool_call_id, 'toolu_T');
    assert.equal(sm?.agent_id, 'toolu_T');
    assert.equal(sm?.is_sidechain, 'true');
    assert.equal(d[1].steps[0].messages[0].content, 'look');
    assert.equal(d[0].steps[0].metadata?.is_sidechain, undefined);
  });

  it('init and result describe every step; the missing -p prompt is said, once per trajectory', () => {
    const d = drafts(...stream());
    const m = d[0].steps[0].metadata;
    assert.equal(m?.claude_code_version, '2.0.30');
    assert.equal(m?.tool_names, '["Task","Bash"]');
    assert.equal(m?.permission_mode, 'default');
    assert.equal(m?.result_subtype, 'error_max_turns');
    assert.equal(m?.result_is_error, 'true');
    assert.equal(m?.num_turns, '4');
    assert.equal(m?.total_cost_usd, '0.0123');
    assert.equal(m?.duration_ms, '8100');
    assert.equal(m?.prompt_missing, 'true');
    assert.equal(d[0].prompt_uid, `claude-code:${S}`);
    assert.equal(d[1].steps[0].metadata?.prompt_missing, undefined);
    assert.equal(d[1].steps[0].metadata?.num_turns, '4');
    assert.equal(d[1].prompt_uid, undefined);
  });

  it('a step’s own metadata wins over the run’s', () => {
    const d = drafts({ ...init, claude_code_version: '9.9.9' }, a('msg_1', [text('x')]), result);
    assert.equal(d[0].steps[0].metadata?.claude_code_version, '9.9.9');
    const clash = drafts({ ...result, session_id: S }, { ...a('msg_1', [text('x')]), session_id: S });
    assert.equal(clash[0].steps[0].metadata?.session_id, S);
  });

  it('a system line other than init is not the init', () => {
    const d = drafts({ ...init, subtype: 'status' }, a('msg_1', [text('x')]));
    assert.equal(d[0].steps[0].metadata?.tool_names, undefined);
    assert.equal(d[0].steps[0].metadata?.prompt_missing, undefined, 'no run metadata at all: nothing said');
  });

  it('a result alone still marks the missing prompt', () => {
    const d = drafts(a('msg_1', [text('x')]), { type: 'result', subtype: 'success', session_id: S });
    assert.equal(d[0].steps[0].metadata?.result_subtype, 'success');
    assert.equal(d[0].steps[0].metadata?.prompt_missing, 'true');
  });

  it('a run given its prompt (the Agent SDK echoes it) is not marked', () => {
    const d = drafts(init, u('Say hi'), a('msg_1', [text('hi')]), result);
    assert.equal(d[0].steps[0].metadata?.prompt_missing, undefined);
    assert.equal(d[0].prompt_uid, undefined);
    const blank = drafts(init, u(''), a('msg_1', [text('hi')]));
    assert.equal(blank[0].steps[0].metadata?.prompt_missing, 'true', 'an empty user message is no prompt');
  });

  it('a prompt_uid the trajectory already has is kept', () => {
    const d = drafts(init, a('msg_1', [text('x')]), a('msg_2', [text('y')]));
    assert.equal(d[0].prompt_uid, `claude-code:${S}`);
    assert.equal(d[0].steps.length, 2);
    assert.ok(d[0].steps.every((s) => s.metadata?.prompt_missing === 'true'));
  });

  it('the first line of a thread names its Task call; later lines chain to the one before', () => {
    const d = drafts(init, a('msg_1', [toolUse('toolu_T', 'Task', { prompt: 'p' })]), a('msg_S1', [text('s1')], 'toolu_T'), a('msg_S2', [text('s2')], 'toolu_T'));
    assert.equal(d[1].steps.length, 2);
    assert.deepEqual(
      d[1].steps[1].messages.map((m) => m.content),
      ['s1'],
    );
    assert.equal(d[1].steps[1].metadata?.parent_tool_call_id, 'toolu_T');
  });
});

const SESSION = '5d3f2c1a-8e4b-4f7a-9c2d-1b6e0a9f4c37';

describe('claude-code normalizer: variations of the session fixture', () => {
  const side = runFixture(claudeCode, 'claude-code-session.jsonl').filter((r) => r.trajectory_uid !== SESSION);

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

  it("a subagent's file imported with its session file (a project folder) is linked to its Task call; alone it says where the call is", async () => {
    const dir = new URL('../fixtures/folders/claude-code-project/-home-dev-tidy-csv/', import.meta.url);
    const named = (rel: string) => new File([readFileSync(new URL(rel, dir))], `-home-dev-tidy-csv/${rel}`);
    const sessionFile = named(`${SESSION}.jsonl`);
    const agentFile = named(`${SESSION}/subagents/agent-a7c41e0.jsonl`);
    const together = await importWith(agentFile, [sessionFile]);
    assert.deepEqual(
      together.rows.map((r) => [r.trajectory_uid, r.metadata?.parent_trajectory_uid, r.metadata?.parent_tool_call_id]),
      [0, 1].map(() => [`${SESSION}:agent-a7c41e0`, SESSION, 'toolu_01Task9xYe']),
    );
    assert.deepEqual(together.report.warnings, []);
    const alone = await importWith(agentFile, []);
    assert.equal(alone.rows.length, 2);
    assert.equal(alone.rows[0].metadata?.parent_tool_call_id, undefined);
    assert.ok(alone.report.warnings.some((w) => w.includes(`the Task call that started it (parent_tool_call_id) is in ${SESSION}.jsonl`)), alone.report.warnings.join(' | '));
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
