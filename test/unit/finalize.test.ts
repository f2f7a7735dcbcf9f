import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFinalizeState, finalize, promptUid } from '../../src/ingest/finalize';
import type { ChatMessage } from '../../src/contract/step';
import { hash64 } from '../../src/util/hash';

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
    const { redactedJson, redactSecrets } = await import('../../src/ingest/redact');
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
    const { redactedJson, redactSecrets } = await import('../../src/ingest/redact');
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
