import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compileMapping, evalField, getPath } from '../../src/ingest/mapping/compile';
import { MappingError, validateMapping } from '../../src/ingest/mapping/spec';
import { records, run } from './format-helpers';

const formatsDir = new URL('../../notebooks/formats/', import.meta.url);
const mapping = (name: string): unknown => JSON.parse(readFileSync(new URL(name, formatsDir), 'utf8'));

describe('mapping validator', () => {
  it('accepts every shipped example mapping', () => {
    const files = readdirSync(formatsDir).filter((f) => f.endsWith('.json') && f !== 'index.json');
    assert.ok(files.length >= 3);
    for (const f of files) assert.deepEqual(validateMapping(mapping(f)), [], f);
  });

  it('names each problem by its path and says what is wrong', () => {
    const problems = validateMapping({
      id: 'Bad Id',
      label: 'x',
      detect: { required: [] },
      fields: { messages: { path: 3, roleMap: { human: 1 } }, reward: { transforms: ['squash'] }, colour: 'x' },
      metadata: { rest: 'yes' },
    });
    assert.ok(problems.some((p) => p.startsWith('mapping.id: expected a lower-case id')));
    assert.ok(problems.some((p) => p.startsWith('mapping.detect.required: expected a non-empty list')));
    assert.ok(problems.includes('mapping.fields.messages.path: expected a dotted path string or a list of them, got number 3'));
    assert.ok(problems.some((p) => p.startsWith('mapping.fields.messages.roleMap: expected an object of role names')));
    assert.ok(problems.includes('mapping.fields.reward: needs "path" or "value"'));
    assert.ok(problems.some((p) => p.startsWith('mapping.fields.reward.transforms[0]: unknown transform "squash"')));
    assert.ok(problems.some((p) => p.startsWith('mapping.fields.colour: unknown key')));
    assert.ok(problems.includes('mapping.metadata.rest: expected true or false'));
    assert.deepEqual(validateMapping('nope'), ['mapping: expected a JSON object, got "nope"']);
  });

  it('compileMapping throws one error listing all problems', () => {
    assert.throws(
      () => compileMapping({ id: 'x', label: 'X', detect: { required: ['a'] }, fields: {} }),
      (e: unknown) => e instanceof MappingError && e.problems.length === 1 && /fields\.messages: missing/.test(e.message) && /fix these/.test(e.message),
    );
  });
});

describe('mapping paths and transforms', () => {
  const v = { a: { list: [1, 2, 3], s: '{"inner": "[\\"x\\", \\"y\\"]"}' }, parts: [{ type: 'text', text: 'hi' }, { type: 'image_url' }], role: 'HUMAN' };
  it('walks arrays (negative = from the end) and JSON strings on the way', () => {
    assert.equal(getPath(v, 'a.list.-1'), 3);
    assert.equal(getPath(v, 'a.list.0'), 1);
    assert.equal(getPath(v, 'a.s.inner.1'), 'y');
    assert.equal(getPath(v, 'a.nope.x'), undefined);
    assert.equal(evalField(v, ['missing', 'a.list.1']), 2, 'alternatives tried in order');
  });
  it('applies transforms in order', () => {
    assert.equal(evalField(v, { path: 'parts', transforms: ['join'] }), 'hi\n[image]');
    assert.equal(evalField(v, { path: 'a.list', transforms: ['last', 'string'] }), '3');
    assert.equal(evalField(v, { path: 'a.list', transforms: [1] }), 2);
    assert.equal(evalField(v, { path: 'role', transforms: ['lower', { map: { human: 'user' } }] }), 'user');
    assert.equal(evalField(v, { path: 'role', transforms: [{ map: { x: 'y' }, default: 'other' }] }), 'other');
    assert.equal(evalField(v, { path: 'missing', value: 'fallback' }), 'fallback');
    assert.equal(evalField({ n: '0.5' }, { path: 'n', transforms: ['number'] }), 0.5);
  });
});

describe('mapping: agent-turns (records + trajectory.steps)', () => {
  const n = compileMapping(mapping('agent-turns.json'));
  it('detects by required paths only', () => {
    assert.ok(n.detect(records('agent-turns.json').map((r) => r.value)) > 0.8);
    assert.equal(n.detect([{ runs: [] }]), 0);
  });
  it('makes a trajectory per run and a step per turn, skipping empty runs', () => {
    const rows = run(n, records('agent-turns.json'));
    assert.deepEqual(rows.map((r) => r.step_id), ['run-a:0', 'run-a:1']);
    assert.deepEqual(rows[0].messages, [{ role: 'system', content: 'Add numbers.' }, { role: 'user', content: '2+3?' }]);
    assert.equal(rows[1].messages[2].role, 'assistant');
    assert.equal(rows[0].response?.content, '5');
    assert.equal(rows[1].response?.content, '9');
    assert.equal(rows[0].reward, 1);
    assert.equal(rows[1].reward, null);
    assert.equal(rows[0].prompt_tokens, 12);
    assert.equal(rows[0].started_at, 1764583200000);
    assert.equal(rows[0].model, 'tiny-1b');
    assert.equal(rows[0].source_format, 'agent-turns');
  });
});
