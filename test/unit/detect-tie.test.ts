/**
 * The documented tie rule of format detection (src/ingest/detect.ts): equal scores go to the
 * normalizer listed earlier. A one-record Langfuse observations export (a GENERATION of an Anthropic
 * call) scores the same for Langfuse and Anthropic; it must be read as Langfuse.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectFormat } from '../../src/ingest/detect';
import type { Normalizer } from '../../src/ingest/normalizer';
import { NORMALIZERS } from '../../src/ingest/normalizers';
import { ingestFile, type IngestSink } from '../../src/ingest/pipeline';
import { fixtureRecords } from './helpers/formats';

const FILE = 'langfuse-observation-single.jsonl';

describe('format detection ties', () => {
  it('the fixture really is a tie: Langfuse and Anthropic score the same, Langfuse is listed first', () => {
    const d = detectFormat(fixtureRecords(FILE).map((r) => r.value));
    assert.equal(d.scores.langfuse, d.scores.anthropic);
    assert.ok(d.scores.langfuse >= 0.5);
    assert.ok(NORMALIZERS.findIndex((n) => n.id === 'langfuse') < NORMALIZERS.findIndex((n) => n.id === 'anthropic'));
    assert.equal(d.normalizer.id, 'langfuse');
    assert.equal(d.confidence, d.scores.langfuse);
  });

  it('goes to the earlier normalizer whatever the scores are', () => {
    const fake = (id: string, score: number) => ({ id, label: id, detect: () => score, normalize: () => [] }) as unknown as Normalizer<unknown>;
    for (const s of [0.3, 0.7, 1]) {
      assert.equal(detectFormat([{}], [fake('a', s), fake('b', s)]).normalizer.id, 'a');
      assert.equal(detectFormat([{}], [fake('b', s), fake('a', s)]).normalizer.id, 'b');
      assert.equal(detectFormat([{}], [fake('a', s), fake('b', s + 0.01)]).normalizer.id, 'b');
    }
  });

  it('a one-record Langfuse export is imported as Langfuse, with its generation as a step', async () => {
    const { readFileSync } = await import('node:fs');
    const bytes = readFileSync(new URL(`../fixtures/formats/${FILE}`, import.meta.url));
    let appended = 0;
    const sink: IngestSink = {
      beginImport: async () => 1,
      setImportSource: async () => {},
      appendBatch: async () => {
        appended++;
      },
      commitImport: async (_id, info) => ({ rowsAdded: info.rowsMade }),
      abortImport: async () => {},
    };
    const rep = await ingestFile(new File([bytes], FILE), sink);
    assert.equal(rep.format, 'langfuse');
    assert.equal(rep.status, 'done');
    assert.equal(rep.rows, 1);
    assert.equal(appended, 1);
  });
});
