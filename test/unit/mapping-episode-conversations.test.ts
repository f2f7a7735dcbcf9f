import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compileMapping } from '../../src/ingest/mapping/compile';
import { conversations } from '../../src/ingest/normalizers/conversations';
import type { StepRecord } from '../../src/contract/step';
import { records, run, sample } from './format-helpers';

const spec = JSON.parse(readFileSync(new URL('../../notebooks/formats/episode-conversations.json', import.meta.url), 'utf8'));

const comparable = (rows: StepRecord[]) => rows.map(({ source_format: _format, ...rest }) => rest);

describe('mapping: episode-conversations', () => {
  const n = compileMapping(spec);
  it('gives the same step records as the hand-written conversations normalizer', () => {
    const mapped = run(n, records('episode-conversations.jsonl'));
    const builtIn = run(conversations, records('episode-conversations.jsonl'));
    assert.equal(mapped.length, 4);
    assert.deepEqual(comparable(mapped), comparable(builtIn));
  });
  it('detects the same records', () => {
    assert.ok(n.detect(sample('episode-conversations.jsonl')) > 0.8);
    assert.equal(n.detect(sample('tau-bench-results.json')), 0);
  });
});
