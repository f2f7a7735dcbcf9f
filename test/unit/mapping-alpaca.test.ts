import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { compileMapping } from '../../src/ingest/mapping/compile';
import { records, run, sample } from './format-helpers';

const n = compileMapping(JSON.parse(readFileSync(new URL('../../notebooks/formats/alpaca.json', import.meta.url), 'utf8')));

describe('mapping: alpaca', () => {
  it('detects instruction/output rows only', () => {
    assert.ok(n.detect(sample('alpaca.jsonl')) > 0.8);
    assert.equal(n.detect([{ messages: [] }]), 0);
  });
  it('builds the prompt from instruction + optional input, with an optional system prompt', () => {
    const rows = run(n, records('alpaca.jsonl'));
    assert.equal(rows.length, 3);
    assert.deepEqual(rows[0].messages, [{ role: 'user', content: 'Give three tips for staying healthy.' }], 'empty input is skipped');
    assert.deepEqual(rows[1].messages, [
      { role: 'system', content: 'You are a careful translator.' },
      { role: 'user', content: 'Translate the sentence into French.\n\nThe cat sleeps on the sofa.' },
    ]);
    assert.equal(rows[1].response?.content, 'Le chat dort sur le canapé.');
    assert.equal(rows[1].response?.role, 'assistant');
    assert.equal(rows[1].metadata?.category, 'translation');
    assert.equal(rows[1].data_source, 'alpaca');
    assert.equal(rows[2].data_source, 'yelp-mini');
    assert.equal(rows[2].response?.content, '');
    assert.equal(rows[0].is_last, null);
    assert.equal(rows[0].prompt_uid === rows[1].prompt_uid, false);
  });
});
