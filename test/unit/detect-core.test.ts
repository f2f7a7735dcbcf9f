
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat, MIN_CONFIDENCE } from '../../src/ingest/detect';
import { fixtureRecords } from './helpers/formats';
import type { Normalizer } from '../../src/ingest/normalizer';

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

const fake = (id: string, detect: () => number) => ({ id, label: id, detect, normalize: () => [] }) as unknown as Normalizer<unknown>;
const score = (id: string, s: number) => fake(id, () => s);
const SAMPLE = [{ messages: [{ role: 'user', content: 'hi' }] }];

describe('detectFormat choice rules', () => {
  it('a detector that throws scores 0 and does not stop the others', () => {
    const d = detectFormat(SAMPLE, [
      fake('boom', () => {
        throw new Error('bad record');
      }),
      score('ok', 0.6),
    ]);
    assert.equal(d.normalizer.id, 'ok');
    assert.deepEqual(d.scores, { boom: 0, ok: 0.6 });
  });

  it('NaN, Infinity and negative scores are recorded as 0 and never win', () => {
    const d = detectFormat(SAMPLE, [score('nan', Number.NaN), score('inf', Number.POSITIVE_INFINITY), score('neg', -3), score('real', 0.4)]);
    assert.deepEqual(d.scores, { nan: 0, inf: 0, neg: 0, real: 0.4 });
    assert.equal(d.normalizer.id, 'real');
    assert.equal(d.confidence, 0.4);
  });

  it('a score exactly at the floor is trusted; just under it falls back to generic with generic confidence', () => {
    const at = detectFormat(SAMPLE, [score('a', MIN_CONFIDENCE)]);
    assert.equal(at.normalizer.id, 'a');
    assert.equal(at.confidence, MIN_CONFIDENCE);
    const under = detectFormat(SAMPLE, [score('a', 0.19)]);
    assert.equal(under.normalizer.id, 'generic');
    assert.notEqual(under.confidence, 0.19);
    assert.deepEqual(under.scores, { a: 0.19 });
  });

  it('all-zero scores: generic, and the scores of every candidate are still reported', () => {
    const d = detectFormat(SAMPLE, [score('a', 0), score('b', 0)]);
    assert.equal(d.normalizer.id, 'generic');
    assert.deepEqual(d.scores, { a: 0, b: 0 });
  });

  it('the highest score wins wherever it is listed', () => {
    assert.equal(detectFormat(SAMPLE, [score('a', 0.3), score('b', 0.9), score('c', 0.5)]).normalizer.id, 'b');
    assert.equal(detectFormat(SAMPLE, [score('a', 0.9), score('b', 0.3)]).confidence, 0.9);
  });
});
