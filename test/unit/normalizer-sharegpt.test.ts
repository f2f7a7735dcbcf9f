/**
 * ShareGPT survivors left by the first measurement of src/ingest/normalizers/sharegpt.ts (docs/testing.md):
 * the own fields never repeated in metadata (the singular `conversation` key included), a conversation with
 * one malformed turn is not ShareGPT, mixed from/value and role/content data still scores as from/value,
 * and the tool entries that get wrapped as functions. Written to kill mutants StrykerJS found.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharegpt } from '../../src/ingest/normalizers/sharegpt';
import { runNormalizer } from './helpers/formats';

const rows = (...values: unknown[]) => runNormalizer(sharegpt, values.map((value, index) => ({ value, line: index + 1, index })));
const fv = [{ from: 'human', value: 'What is 2+2?' }, { from: 'gpt', value: '4' }];
const rc = [{ role: 'user', content: 'What is 2+2?' }, { role: 'assistant', content: '4' }];

describe('sharegpt normalizer: survivors', () => {
  it('no own field is repeated in metadata, with either conversation key', () => {
    const own = { system: 'Be brief.', tools: '[]', id: 'i-1', conversation_id: 'c-1', uid: 'p-1', data_source: 'ds', model: 'm', reward: 1, score: 0.5 };
    assert.deepEqual(rows({ conversations: fv, ...own, lang: 'en' }).at(-1)?.metadata, { lang: 'en' });
    const single = rows({ conversation: fv, ...own, lang: 'en' }).at(-1)!;
    assert.deepEqual(single.metadata, { lang: 'en' });
    assert.deepEqual([single.trajectory_uid, single.reward], ['i-1', 1], 'id before conversation_id, reward before score');
    assert.equal(rows({ conversation: fv }).at(-1)?.metadata, null);
  });

  it('a conversation with one turn that is neither from/value nor role/content is not ShareGPT', () => {
    const bad = { conversations: [...fv, { speaker: 'gpt', text: 'x' }] };
    assert.equal(sharegpt.detect([bad]), 0);
    assert.throws(() => rows(bad), /no "conversations" list/);
    assert.equal(sharegpt.detect([{ data: [bad] }]), 0, 'nor a container of such conversations');
  });

  it('from/value scores 0.95 when any conversation or turn of the record uses it', () => {
    assert.equal(sharegpt.detect([{ conversations: [rc[0], fv[1]] }]), 0.95, 'one from/value turn among role/content ones');
    assert.equal(sharegpt.detect([[{ conversations: rc }, { conversations: fv }]]), 0.95, 'one from/value conversation of two');
    assert.equal(sharegpt.detect([[{ conversations: rc }, { conversations: rc }]]), 0.7);
  });

  it('tools: only a {name} entry without a type is wrapped as a function', () => {
    const tools = [{ name: 'calc', description: 'add', parameters: { type: 'object' } }, { type: 'function', name: 'typed' }, { description: 'no name' }, 'text'];
    const t = rows({ conversations: fv, tools }).at(-1)!.tools;
    assert.deepEqual(JSON.parse(t ?? 'null'), [{ type: 'function', function: { name: 'calc', description: 'add', parameters: { type: 'object' } } }, { type: 'function', name: 'typed' }, { description: 'no name' }, 'text']);
  });
});

describe('sharegpt normalizer', () => {
  it('detects from/value conversations only', () => {
    assert.equal(sharegpt.detect([{ messages: [{ role: 'user', content: 'x' }] }]), 0);
  });
});
