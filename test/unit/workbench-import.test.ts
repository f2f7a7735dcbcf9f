/**
 * `window.workbench.importFiles` (Workbench.importFiles): its options reach the importer — `format` reads the files as
 * that format instead of detecting it, as the panel and the CLI's `--format` do.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Exporter, ImportOptions, ImportReport, Importer } from '../../src/contract/reports';
import { Workbench } from '../../src/app/workbench';
import type { PoolClient } from '../../src/pool/client';
import { importWith } from './helpers/ingest-files';

/** The real pipeline over a memory sink, honouring the options the queue passes on. */
class PipelineImporter implements Importer {
  seen: ImportOptions[] = [];
  async importFiles(files: File[], opts: ImportOptions = {}): Promise<ImportReport[]> {
    this.seen.push(opts);
    const out: ImportReport[] = [];
    for (const f of files) out.push((await importWith(f, opts.siblings ?? [], opts.format)).report);
    return out;
  }
  importUrl(): Promise<ImportReport> {
    throw new Error('not used');
  }
}

const tickets = () => new File([readFileSync(new URL('../fixtures/mapping/support-tickets.jsonl', import.meta.url))], 'support-tickets.jsonl');

describe('workbench.importFiles', () => {
  it('format: the files are read as that format; without it, detection decides', async () => {
    const importer = new PipelineImporter();
    const wb = new Workbench({} as PoolClient, importer, {} as Exporter, () => {});
    const [detected] = await wb.importFiles([tickets()]);
    assert.equal(detected.status, 'failed');
    assert.ok(detected.notUnderstood);
    const [asked] = await wb.importFiles([tickets()], { format: 'generic' });
    assert.deepEqual([asked.status, asked.format, asked.rows], ['done', 'generic', 5]);
    const [unknown] = await wb.importFiles([tickets()], { format: 'no-such-format' });
    assert.equal(unknown.status, 'failed');
    assert.match(unknown.message ?? '', /unknown format "no-such-format"/);
    assert.deepEqual(
      importer.seen.map((o) => [o.format, o.shards]),
      [
        [undefined, undefined],
        ['generic', undefined],
        ['no-such-format', undefined],
      ],
    );
  });
});
