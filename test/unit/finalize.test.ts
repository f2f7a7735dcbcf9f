
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFinalizeState, finalize, type FinalizeState } from '../../src/ingest/finalize';
import { promptText, promptUid } from '../../src/record/prompt-uid';
import type { ChatMessage, TrajectoryDraft } from '../../src/contract/step';
import { hash64 } from '../../src/util/hash';
import { NAIVE_TIME_NOTE } from '../../src/contract/json';
import type { SourceRecord } from '../../src/ingest/normalizer';

const ctx = { sourceId: 'abcdef0123456789abcdef', file: 'log.jsonl' };
const opts = { format: 'test', importId: 7 };
const sys: ChatMessage = { role: 'system', content: 'You are terse.' };
const u1: ChatMessage = { role: 'user', content: 'What is 2+2?' };
const a1: ChatMessage = { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calc', arguments: '{"e":"2+2"}' } }] };
const t1: ChatMessage = { role: 'tool', content: '4', tool_call_id: 'c1' };
const a2: ChatMessage = { role: 'assistant', content: 'It is 4.' };

describe('finalize', () => {
  it('fills ids by the data contract', () => {
    const rows = finalize([{ steps: [{ messages: [sys, u1], response: a2 }] }], { value: { x: 1 }, line: 3, index: 2 }, ctx, createFinalizeState(), opts);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].trajectory_uid, 'abcdef012345-2');
    assert.equal(rows[0].step_id, 'abcdef012345-2:0');
    assert.equal(rows[0].prompt_uid, promptUid([sys, u1]));
    assert.equal(rows[0].source_line, 3);
    assert.equal(rows[0].import_id, 7);
    assert.equal(rows[0].response_text, 'It is 4.');
    assert.equal(rows[0].raw, '{"x":1}');
    assert.equal(rows[0].is_last, null);
  });

  it('links a growing history into one trajectory', () => {
    const st = createFinalizeState();
    const r1 = finalize([{ link: true, steps: [{ messages: [sys, u1], response: a1 }] }], { value: {}, line: 1, index: 0 }, ctx, st, opts);
    const r2 = finalize([{ link: true, steps: [{ messages: [sys, u1, a1, t1], response: a2 }] }], { value: {}, line: 2, index: 1 }, ctx, st, opts);
    const r3 = finalize([{ link: true, steps: [{ messages: [sys, u1], response: a2 }] }], { value: {}, line: 3, index: 2 }, ctx, st, opts);
    assert.equal(r2[0].trajectory_uid, r1[0].trajectory_uid);
    assert.equal(r2[0].step_index, 1);
    assert.notEqual(r3[0].trajectory_uid, r1[0].trajectory_uid);
    assert.equal(r3[0].prompt_uid, r1[0].prompt_uid, 'same prompt → same GRPO group');
  });

  it('prompt uid ignores later turns', () => {
    assert.equal(promptUid([sys, u1, a2]), promptUid([sys, u1]));
    assert.notEqual(promptUid([u1]), promptUid([sys, u1]));
  });

  it('a trajectory delivered as [sys, u1] and then [sys, u1, a1, u2] keeps one prompt id (the first user turn ends the prompt)', () => {
    const u2: ChatMessage = { role: 'user', content: 'And 3+3?' };
    assert.equal(promptUid([sys, u1, a1, t1, a2, u2]), promptUid([sys, u1]));
    // the same through finalize: two records, the second a later call of the same trajectory (own id)
    const st = createFinalizeState();
    const r1 = finalize([{ trajectory_uid: 'sess-1', steps: [{ messages: [sys, u1], response: a2 }] }], { value: {}, line: 1, index: 0 }, ctx, st, opts);
    const r2 = finalize([{ trajectory_uid: 'sess-2', steps: [{ messages: [sys, u1, a2, u2], response: a2 }] }], { value: {}, line: 2, index: 1 }, ctx, st, opts);
    assert.equal(r2[0].prompt_uid, r1[0].prompt_uid, 'one GRPO group');
  });

  it('prompt ids of ordinary prompts are what they were (system text and first user turn, hashed)', () => {
    assert.equal(promptUid([sys, u1]), `p-${hash64('s:You are terse.\nu:What is 2+2?')}`);
    assert.equal(promptUid([u1]), `p-${hash64('u:What is 2+2?')}`);
  });

  it('a blank prompt gets a prompt id of its own trajectory, flagged p-empty-, never one shared by unrelated files', () => {
    const blank: ChatMessage[][] = [[], [{ role: 'user', content: '' }], [{ role: 'system', content: '  ' }, { role: 'user', content: null }, a2]];
    const st = createFinalizeState();
    const uids = blank.map((messages, i) => finalize([{ steps: [{ messages, response: a2 }] }], { value: {}, line: i + 1, index: i }, { ...ctx, sourceId: `file${i}0000000000000` }, st, opts)[0].prompt_uid);
    for (const u of uids) assert.match(u, /^p-empty-/);
    assert.equal(new Set(uids).size, uids.length, 'no two blank prompts share a group');
    assert.equal(st.emptyPrompts, 3);
    // one trajectory's steps share its (own) prompt id
    const rows = finalize([{ trajectory_uid: 'x', steps: [{ messages: [], response: a2 }, { messages: [a2], response: a2 }] }], { value: {}, line: 9, index: 9 }, ctx, st, opts);
    assert.equal(rows[0].prompt_uid, rows[1].prompt_uid);
    assert.equal(rows[0].prompt_uid, promptUid([], 'x'));
    // image-only prompts differ by their parts, not grouped as blank
    const img = (url: string): ChatMessage => ({ role: 'user', content: null, parts: JSON.stringify([{ type: 'image_url', image_url: { url } }]) });
    assert.notEqual(promptUid([img('a.png')]), promptUid([img('b.png')]));
    assert.match(promptUid([img('a.png')]), /^p-[0-9a-f]/);
  });
});

describe('secrets', () => {
  it('strips key-shaped strings from messages, responses, tool arguments and raw', () => {
    const key = 'sk-proj-FAKEKEY1234567890abcdefXYZ';
    const rows = finalize(
      [{ steps: [{ messages: [{ role: 'user', content: `my key is ${key}` }], response: { role: 'assistant', content: 'ok', tool_calls: [{ id: 'c', type: 'function', function: { name: 'set', arguments: JSON.stringify({ api_key: key }) } }] } }] }],
      { value: { headers: { Authorization: `Bearer ${key}` }, note: key }, line: 1, index: 0 },
      ctx,
      createFinalizeState(),
      opts,
    );
    const text = JSON.stringify(rows);
    assert.ok(!text.includes(key), text);
    assert.match(rows[0].messages[0].content ?? '', /\[redacted\]/);
  });
});

describe('redactedJson', () => {
  it('equals the deep redaction, and skips it for records without anything secret-like', async () => {
    const { redactedJson, redactSecrets } = await import('../../src/record/redact');
    const cases: unknown[] = [
      { messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'calc' } }] },
      { headers: { Authorization: 'Bearer abcdefghijkl' } },
      { har: [{ name: 'Cookie', value: 'sid=123456789' }, { name: 'accept', value: '*/*' }] },
      { url: 'https://api.example.com/v1?api_key=abcdef123456' },
      { text: 'key sk-ant-0123456789abcdefghijkl here' },
      { nested: { deeper: { password: 'hunter2hunter2' } } },
    ];
    for (const c of cases) assert.equal(redactedJson(c), JSON.stringify(redactSecrets(c)));
  });

  it("keeps the source's own text when clean, and redacts a copy when not", async () => {
    const { redactedJson, redactSecrets } = await import('../../src/record/redact');
    const clean = '{"b": 1, "a": 12345678901234567890}\r';
    assert.equal(redactedJson(JSON.parse(clean), clean), '{"b": 1, "a": 12345678901234567890}');
    const dirty = '{ "headers": {"Authorization": "Bearer abcdefghijkl"}, "n": 1 }';
    const out = redactedJson(JSON.parse(dirty), dirty);
    assert.equal(out, JSON.stringify(redactSecrets(JSON.parse(dirty))));
    assert.ok(!out?.includes('abcdefghijkl'));
  });

  it('a JSONL record keeps its line as raw', async () => {
    const rows = finalize([{ steps: [{ messages: [{ role: 'user', content: 'hi' }], response: null }] }], { value: { x: 1, y: 2 }, line: 1, index: 0, text: '{"y":2,  "x":1}' }, ctx, createFinalizeState(), { format: 't', importId: 1 });
    assert.equal(rows[0].raw, '{"y":2,  "x":1}');
  });
});

describe('finalize in the shapes the normalizers hand over', () => {
  const ctx = { sourceId: 'feedc0ffee0123456789abcdef', file: 'calls.jsonl' };
  const opts = { format: 'openai-log', importId: 4 };
  const sys: ChatMessage = { role: 'system', content: 'You are terse.' };
  const u1: ChatMessage = { role: 'user', content: 'List the files.' };
  const call = (id: string, args: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'ls', arguments: args } }] });
  const a1 = call('c1', '{"path":"."}');
  const t1: ChatMessage = { role: 'tool', content: 'a.txt b.txt', tool_call_id: 'c1' };
  const a2: ChatMessage = { role: 'assistant', content: 'a.txt and b.txt.' };
  const rec = (index: number, value: unknown = { n: index }): SourceRecord => ({ value, line: index + 1, index });

  /** One request-log record: a call with its whole history, linked. */
  function logCall(st: FinalizeState, index: number, messages: ChatMessage[], response: ChatMessage | null) {
    const [row] = finalize([{ link: true, steps: [{ messages, response }] }], rec(index), ctx, st, opts);
    return row;
  }

  describe('history linking (request logs)', () => {
    it('a call continues the trajectory whose last call its history extends, and only that call', () => {
      const st = createFinalizeState();
      const r0 = logCall(st, 0, [sys, u1], a1);
      const r1 = logCall(st, 1, [sys, u1, a1, t1], a2);
      // the same agent retried the first call: a new trajectory (branch), same prompt
      const r2 = logCall(st, 2, [sys, u1, a1, t1], a2);
      assert.equal(r1.trajectory_uid, r0.trajectory_uid);
      assert.deepEqual([r0.step_index, r1.step_index], [0, 1]);
      assert.notEqual(r2.trajectory_uid, r0.trajectory_uid);
      assert.equal(r2.step_index, 0);
      assert.equal(r2.prompt_uid, r0.prompt_uid);
      assert.equal(st.linked, true);
      assert.deepEqual([r0.is_last, r1.is_last], [null, null], 'a linked call never knows it is the last');
    });

    it('the history must repeat the response: another tool, other arguments or other text do not link', () => {
      for (const other of [call('c1', '{"path":"/"}'), { ...a1, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'cat', arguments: '{"path":"."}' } }] } as ChatMessage, { role: 'assistant', content: 'Sure.' } as ChatMessage]) {
        const st = createFinalizeState();
        const r0 = logCall(st, 0, [sys, u1], a1);
        assert.notEqual(logCall(st, 1, [sys, u1, other, t1], a2).trajectory_uid, r0.trajectory_uid, JSON.stringify(other));
      }
    });

    it('whitespace around content does not break the link; a call without a response ends nothing', () => {
      const st = createFinalizeState();
      const r0 = logCall(st, 0, [sys, u1], { role: 'assistant', content: 'a.txt and b.txt.\n' });
      const r1 = logCall(st, 1, [sys, u1, { role: 'assistant', content: '  a.txt and b.txt.' }, { role: 'user', content: 'thanks' }], null);
      assert.equal(r1.trajectory_uid, r0.trajectory_uid);
      const r2 = logCall(st, 2, [sys, u1, a2, { role: 'user', content: 'thanks' }, { role: 'assistant', content: null }], a2);
      assert.notEqual(r2.trajectory_uid, r0.trajectory_uid, 'r1 had no response to extend');
    });

    it('a linked draft with its own trajectory id is not linked, but still continues its index', () => {
      const st = createFinalizeState();
      const [x0] = finalize([{ link: true, trajectory_uid: 'sess', steps: [{ messages: [sys, u1], response: a1 }] }], rec(0), ctx, st, opts);
      const [x1] = finalize([{ link: true, trajectory_uid: 'sess', steps: [{ messages: [sys, u1, a1, t1], response: a2 }] }], rec(1), ctx, st, opts);
      assert.deepEqual([x0.step_index, x1.step_index], [0, 1]);
      assert.deepEqual([...st.own], ['sess']);
    });
  });

  describe('history linking: what does not link', () => {
    it('only linked drafts without an id of their own join a trajectory; a given prompt id is kept', () => {
      const st = createFinalizeState();
      const r0 = logCall(st, 0, [sys, u1], a1);
      const [plain] = finalize([{ steps: [{ messages: [sys, u1, a1, t1], response: a2 }] }], rec(1), ctx, st, opts);
      assert.notEqual(plain.trajectory_uid, r0.trajectory_uid, 'a draft that did not ask for linking');
      const [own] = finalize([{ link: true, trajectory_uid: 'sess-b', steps: [{ messages: [sys, u1, a1, t1], response: a2 }] }], rec(2), ctx, st, opts);
      assert.equal(own.trajectory_uid, 'sess-b');
      assert.equal(own.step_index, 0);
      const [given] = finalize([{ link: true, prompt_uid: 'grp-x', steps: [{ messages: [sys, u1, a1, t1], response: a2 }] }], rec(3), ctx, st, opts);
      assert.equal(given.trajectory_uid, r0.trajectory_uid);
      assert.equal(given.prompt_uid, 'grp-x');
    });
    it('drafts without steps make no rows (linked or not)', () => {
      const st = createFinalizeState();
      assert.deepEqual(finalize([{ link: true, steps: [] }, { steps: [] }], rec(0), ctx, st, opts), []);
    });
  });

  describe('identity fields', () => {
    it('generated trajectory ids: 12 characters of the source id, the record index, the draft index when several', () => {
      const st = createFinalizeState();
      const one = finalize([{ steps: [{ messages: [u1], response: a2 }] }], rec(5), ctx, st, opts);
      assert.equal(one[0].trajectory_uid, 'feedc0ffee01-5');
      const two = finalize([{ steps: [{ messages: [u1], response: a2 }] }, { steps: [{ messages: [u1], response: a2 }] }], rec(6), ctx, st, opts);
      assert.deepEqual(two.map((r) => r.trajectory_uid), ['feedc0ffee01-6-0', 'feedc0ffee01-6-1']);
      assert.deepEqual(two.map((r) => r.step_id), ['feedc0ffee01-6-0:0', 'feedc0ffee01-6-1:0']);
      assert.equal(st.own.size, 0);
      assert.equal(st.linked, false);
    });

    it('a session spread over records keeps counting its steps; is_last false before the last step of a draft', () => {
      const st = createFinalizeState();
      const d = (): TrajectoryDraft => ({ trajectory_uid: 'run-7', steps: [{ messages: [sys, u1], response: a1 }, { messages: [sys, u1, a1, t1], response: a2 }] });
      const first = finalize([d()], rec(0), ctx, st, opts);
      const second = finalize([d()], rec(1), ctx, st, opts);
      assert.deepEqual([...first, ...second].map((r) => [r.step_id, r.step_index, r.is_last]), [
        ['run-7:0', 0, false],
        ['run-7:1', 1, null],
        ['run-7:2', 2, false],
        ['run-7:3', 3, null],
      ]);
      assert.equal(st.nextIndex.get('run-7'), 4);
      assert.equal(first[0].source_trajectory_id, 'run-7');
    });

    it('step fields win over the trajectory common fields, which win over the defaults', () => {
      const [a, b] = finalize(
        [
          {
            trajectory_uid: 'T',
            prompt_uid: 'grp-1',
            common: { model: 'm-common', agent: 'coder', channel: 'eval', reward: 0.5, is_last: true, status: 'error', error: 'boom' },
            steps: [
              { messages: [u1], response: a2, model: 'm-step', step_index: 10, step_id: 'own-id', trajectory_uid: 'T2', prompt_uid: 'grp-2', source_format: 'x', source_line: 99, source_trajectory_id: 'orig', raw: null, is_last: false },
              { messages: [u1], response: null, response_text: 'said sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX' },
            ],
          },
        ],
        rec(3, { k: 1 }),
        ctx,
        createFinalizeState(),
        { format: 'fmt', importId: null },
      );
      assert.deepEqual(
        { id: a.step_id, t: a.trajectory_uid, p: a.prompt_uid, i: a.step_index, m: a.model, ag: a.agent, c: a.channel, r: a.reward, l: a.is_last, f: a.source_format, sl: a.source_line, st: a.source_trajectory_id, raw: a.raw, s: a.status, imp: a.import_id, src: a.source, sid: a.source_id },
        { id: 'own-id', t: 'T2', p: 'grp-2', i: 10, m: 'm-step', ag: 'coder', c: 'eval', r: 0.5, l: false, f: 'x', sl: 99, st: 'orig', raw: null, s: 'error', imp: null, src: 'calls.jsonl', sid: ctx.sourceId },
      );
      assert.deepEqual(
        { id: b.step_id, t: b.trajectory_uid, p: b.prompt_uid, i: b.step_index, m: b.model, l: b.is_last, f: b.source_format, sl: b.source_line, st: b.source_trajectory_id, raw: b.raw, txt: b.response_text, resp: b.response },
        { id: 'T:1', t: 'T', p: 'grp-1', i: 1, m: 'm-common', l: true, f: 'fmt', sl: 4, st: 'T', raw: '{"k":1}', txt: 'said [redacted]', resp: null },
      );
    });

    it('every step field is carried over as the draft gives it', () => {
      const fields = {
        policy_version: 3, data_source: 'gsm8k', provider: 'openai', tools: '[{"type":"function"}]', finish_reason: 'length', prompt_tokens: 11, completion_tokens: 22,
        prompt_ids: [1, 2], response_ids: [3], rollout_log_probs: [-0.5], started_at: 1000, ended_at: 2000, latency_ms: 1000, ttft_ms: 50, error: 'cut off',
      };
      const [r] = finalize([{ steps: [{ messages: [u1], response: a2, ...fields }] }], rec(0), ctx, createFinalizeState(), opts);
      for (const [k, v] of Object.entries(fields)) assert.deepEqual(r[k as keyof typeof r], v, k);
    });

    it('defaults: channel train, status ok, every optional field null', () => {
      const [r] = finalize([{ steps: [{ messages: [u1], response: a1 }] }], rec(0), ctx, createFinalizeState(), { ...opts, keepRaw: false });
      assert.equal(r.channel, 'train');
      assert.equal(r.status, 'ok');
      assert.equal(r.raw, null);
      assert.equal(r.source_trajectory_id, null);
      for (const k of ['policy_version', 'agent', 'data_source', 'model', 'provider', 'tools', 'finish_reason', 'prompt_tokens', 'completion_tokens', 'prompt_ids', 'response_ids', 'rollout_log_probs', 'reward', 'started_at', 'ended_at', 'latency_ms', 'ttft_ms', 'error', 'metadata'] as const) {
        assert.equal(r[k], null, k);
      }
      assert.equal(r.response_text, 'ls({"path":"."})');
    });

    it('secrets in the response and in messages are redacted; steps of one history share their redacted messages', () => {
      const key = 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX';
      const leak: ChatMessage = { role: 'user', content: `use ${key}` };
      const rows = finalize([{ trajectory_uid: 'z', steps: [{ messages: [leak], response: { role: 'assistant', content: `ok ${key}` } }, { messages: [leak, a2], response: a2 }] }], rec(0), ctx, createFinalizeState(), opts);
      assert.equal(rows[0].response?.content, 'ok [redacted]');
      assert.equal(rows[0].response_text, 'ok [redacted]');
      assert.equal(rows[1].messages[0].content, 'use [redacted]');
      assert.equal(rows[0].messages[0], rows[1].messages[0]);
    });

    it('counts steps whose source had naive timestamps, and blank prompts', () => {
      const st = createFinalizeState();
      const meta = { [NAIVE_TIME_NOTE.key]: NAIVE_TIME_NOTE.value };
      finalize([{ steps: [{ messages: [u1], response: a2, metadata: meta }, { messages: [u1], response: a2, metadata: { time_zone: 'UTC' } }] }], rec(0), ctx, st, opts);
      finalize([{ steps: [{ messages: [], response: a2 }] }, { prompt_uid: 'given', steps: [{ messages: [], response: a2 }] }], rec(1), ctx, st, opts);
      assert.equal(st.naiveTimes, 1);
      assert.equal(st.emptyPrompts, 1);
    });

    it('no drafts, no rows', () => {
      assert.deepEqual(finalize([], rec(0), ctx, createFinalizeState(), opts), []);
    });
  });

  describe('promptText', () => {
    it('system and developer messages, then the first user turn; image parts count as text', () => {
      assert.equal(promptText([{ role: 'developer', content: ' Be exact. ' }, sys, u1, a2, { role: 'user', content: 'more' }]), 's:Be exact.\ns:You are terse.\nu:List the files.');
      assert.equal(promptText([{ role: 'user', content: null, parts: '[{"type":"image_url"}]' }]), 'u:parts:[{"type":"image_url"}]');
      assert.equal(promptText([{ role: 'system', content: '', parts: '[1]' }, { role: 'user', content: '' }]), 's:parts:[1]\nu:');
      assert.equal(promptText([sys]), 's:You are terse.');
      assert.equal(promptText([{ role: 'system', content: ' ' }, { role: 'user', content: null }]), null);
    });

    it('no system or user message: the first message is the prompt, unless it is blank', () => {
      assert.equal(promptText([a2]), 'assistant\u0001a.txt and b.txt.\u0001\u0001');
      assert.equal(promptText([a1]), 'assistant\u0001\u0001ls:{"path":"."}\u0001');
      assert.equal(promptText([{ role: 'tool', content: 'x', tool_call_id: 'c1' }]), 'tool\u0001x\u0001\u0001c1');
      assert.equal(promptText([{ role: 'assistant', content: '  ' }, u1]), 'u:List the files.');
      assert.equal(promptText([{ role: 'assistant', content: '  ' }]), null);
      assert.equal(promptText([]), null);
    });

    it('blank prompts: one group per trajectory, and one for none', () => {
      assert.notEqual(promptUid([], 'a'), promptUid([], 'b'));
      assert.equal(promptUid([]), promptUid([], ''));
      assert.match(promptUid([]), /^p-empty-/);
    });
  });
});
