import assert from 'node:assert/strict';
import { openAsBlob, readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { previewMapping, readSample } from '../../src/ingest/mapping/preview';
import { keyPaths, skeletonMapping } from '../../src/ingest/mapping/skeleton';
import { MappingError, validateMapping } from '../../src/ingest/mapping/spec';
import { parseMapping } from '../../src/ingest/mapping/store';

const tickets = new URL('../fixtures/mapping/support-tickets.jsonl', import.meta.url);
const lines = readFileSync(tickets, 'utf8').split('\n').flatMap((l) => {
  try {
    return [JSON.parse(l)];
  } catch {
    return [];
  }
});

describe('mapping skeleton ("Start from this file")', () => {
  it('finds the conversation list, its role and content keys, role names, reward and id', () => {
    const s = skeletonMapping(lines, 'support-tickets.jsonl');
    assert.deepEqual(validateMapping(s), []);
    assert.equal(s.id, 'my-support-tickets');
    assert.deepEqual(s.detect.required, ['dialog']);
    assert.deepEqual(s.fields.messages, { path: 'dialog', role: 'who', content: 'said', roleMap: { customer: 'user', bot: 'assistant', sys: 'system' } });
    assert.deepEqual(s.fields.reward, { path: 'csat', transforms: ['number'] });
    assert.equal(s.fields.trajectory_uid, 'ticket');
  });
  it('falls back to prompt / response templates for flat rows', () => {
    const s = skeletonMapping([{ id: 7, question: 'What is 2+2?', answer: '4', score: '1' }], 'qa.jsonl');
    assert.deepEqual(s.fields.messages, [{ role: 'user', content: 'question' }]);
    assert.deepEqual(s.fields.response, { path: 'answer' });
    assert.deepEqual(s.detect.required, ['question', 'answer']);
    assert.equal(s.fields.trajectory_uid, 'id');
    assert.deepEqual(validateMapping(s), []);
  });
  it('looks into a record holding many records', () => {
    const s = skeletonMapping([{ exported: 'x', sessions: [{ session_id: 's1', messages: [{ role: 'user', content: 'hi' }] }] }], 'dump.json');
    assert.equal(s.records, 'sessions');
    assert.deepEqual(s.detect.required, ['sessions.0.messages']);
    assert.equal(s.fields.trajectory_uid, 'session_id');
  });
  it('lists key paths, looking into arrays at their first element', () => {
    assert.deepEqual(keyPaths({ a: 1, b: [{ c: { d: 2 } }] }), ['a', 'b', 'b.0', 'b.0.c', 'b.0.c.d']);
  });
});

describe('parseMapping (what the store saves)', () => {
  it('refuses bad JSON and invalid specs with every problem, and built-in ids', () => {
    assert.throws(() => parseMapping('{"id": '), (e: unknown) => e instanceof MappingError && /not valid JSON/.test(e.problems[0]));
    assert.throws(
      () => parseMapping({ id: 'X', detect: {}, fields: {} }),
      (e: unknown) => e instanceof MappingError && e.problems.some((p) => p.startsWith('mapping.id:')) && e.problems.some((p) => p.startsWith('mapping.fields.messages:')),
    );
    assert.throws(
      () => parseMapping({ id: 'sharegpt', label: 'x', detect: { required: ['a'] }, fields: { messages: { path: 'a' } } }),
      (e: unknown) => e instanceof MappingError && /built-in format/.test(e.problems.join()),
    );
    const text = '{"id": "ok", "label": "ok", "detect": {"required": ["a"]}, "fields": {"messages": {"path": "a"}}}';
    assert.equal(parseMapping(text).text, text, 'the text is kept as written');
  });
});

describe('notebooks/formats/index.json (what the Formats tab lists)', () => {
  it('lists every shipped example mapping, each valid', () => {
    const dir = new URL('../../notebooks/formats/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'index.json').sort();
    const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')) as { files: string[] };
    assert.deepEqual([...index.files].sort(), files);
    for (const f of files) assert.doesNotThrow(() => parseMapping(readFileSync(new URL(f, dir), 'utf8')), f);
  });
});

describe('mapping preview on a sample file', () => {
  it('reads the first records with the importer reader and shows steps, or why a record made none', async () => {
    const sample = await readSample(Object.assign(await openAsBlob(tickets.pathname), { name: 'support-tickets.jsonl' }));
    assert.equal(sample.records.length, 5);
    assert.deepEqual(sample.rejected.map((r) => r.line), [5]);
    const p = previewMapping(skeletonMapping(sample.records.map((r) => r.value), sample.file), sample);
    assert.deepEqual(p.problems, []);
    assert.ok(p.score > 0.8);
    assert.equal(p.winner?.id, 'my-support-tickets');
    const t2 = p.records[1].steps;
    assert.deepEqual(t2.map((s) => [s.trajectory_uid, s.step_index, s.reward]), [['T-1002', 0, null], ['T-1002', 1, 3]]);
    assert.deepEqual(t2[1].messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
    assert.match(t2[1].response?.content ?? '', /can't promise a date/);
    assert.match(p.records[2].error ?? '', /no messages found/);
  });
  it('reports spec problems instead of steps', async () => {
    const sample = { file: 'x', records: [{ value: { a: 1 }, line: 1, index: 0 }], rejected: [], warnings: [] };
    const p = previewMapping('{"id": "x"}', sample);
    assert.ok(p.problems.length >= 3);
    assert.equal(p.records.length, 0);
  });
});
