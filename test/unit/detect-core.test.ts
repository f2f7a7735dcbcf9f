import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import { fixtureRecords } from './helpers/formats';

const CASES: [string, string][] = [
  ['openai-log-requests.jsonl', 'openai-log'],
  ['openai-log-chunks.jsonl', 'openai-log'],
  ['openai-log-stream.sse', 'openai-log'],
  ['anthropic-requests.jsonl', 'anthropic'],
  ['anthropic-events.jsonl', 'anthropic'],
  ['anthropic-stream.sse', 'anthropic'],
  ['sharegpt-llamafactory.jsonl', 'sharegpt'],
  ['sharegpt-array.json', 'sharegpt'],
  ['sharegpt-nested.json', 'sharegpt'],
  ['verl-prompts.jsonl', 'verl'],
  ['rl-generic.jsonl', 'verl'],
  ['step-records.jsonl', 'step-record'],
  ['openai-responses.jsonl', 'openai-responses'],
  ['openai-responses-events.jsonl', 'openai-responses'],
];

function sample(name: string): unknown[] {
  return fixtureRecords(name)
    .slice(0, 20)
    .map((r) => r.value);
}

describe('detectFormat over the core formats', () => {
  for (const [file, id] of CASES) {
    it(`${file} → ${id}`, () => {
      const d = detectFormat(sample(file));
      const ranked = Object.entries(d.scores).sort((a, b) => b[1] - a[1]);
      assert.equal(d.normalizer.id, id, `scores: ${JSON.stringify(ranked)}`);
      assert.ok(d.confidence >= 0.4, `confidence ${d.confidence}`);
    });
  }

  it('each record of a request log alone is still recognised', () => {
    for (const [file, id] of CASES.filter(([f]) => f.includes('requests'))) {
      for (const v of sample(file)) assert.equal(detectFormat([v]).normalizer.id, id, `${file}: ${JSON.stringify(v).slice(0, 120)}`);
    }
  });

  it('plain chat rows stay openai-chat; unknown objects fall back to generic', () => {
    assert.equal(detectFormat([{ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }]).normalizer.id, 'openai-chat');
    const d = detectFormat([{ foo: 1, bar: 'baz' }, { foo: 2 }]);
    assert.equal(d.normalizer.id, 'generic');
    assert.equal(d.confidence, 0.05);
    assert.equal(detectFormat([]).normalizer.id, 'generic');
  });
});
