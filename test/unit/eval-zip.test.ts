/**
 * Inspect `.eval` archives (src/ingest/eval-zip.ts) that are hostile: an entry declaring more than an entry may hold
 * (a zip bomb) is a reported reject naming the file and the entry, read before anything is inflated; the other
 * entries are imported.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { strToU8, unzipSync, zipSync } from 'fflate';
import { type EvalZipOptions, evalZipEvents } from '../../src/ingest/eval-zip';
import { importWith } from './helpers/ingest-files';

const MB = 1024 * 1024;

/** `zip` with the inflated size `entry` declares (central directory and local header) set to `declared` bytes. */
function declare(zip: Uint8Array, entry: string, declared: number): Uint8Array {
  const out = zip.slice();
  const dv = new DataView(out.buffer);
  const name = strToU8(entry);
  const at = (o: number) => out.subarray(o, o + name.length).every((b, i) => b === name[i]);
  let patched = 0;
  for (let o = 0; o + 46 < out.length; o++) {
    const sig = dv.getUint32(o, true);
    // the central directory's entry (what fflate reads) and the local header, as a bomb would have them
    const field = sig === 0x02014b50 && at(o + 46) ? o + 24 : sig === 0x04034b50 && at(o + 30) ? o + 22 : -1;
    if (field < 0) continue;
    dv.setUint32(field, declared, true);
    patched++;
  }
  assert.equal(patched, 2, `${entry}: central directory and local header`);
  return out;
}

describe('.eval archives', () => {
  it('an entry that declares more than 400 MB inflated is rejected as "archive entry too large", naming file and entry; the rest is imported', async () => {
    const members = unzipSync(readFileSync(new URL('../fixtures/formats/inspect-ctf.eval', import.meta.url)));
    members['samples/3_epoch_1.json'] = strToU8(JSON.stringify({ id: 3, epoch: 1, messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] }));
    const bomb = declare(zipSync(members), 'samples/3_epoch_1.json', 600 * MB);
    const { report, rows } = await importWith(new File([bomb as BlobPart], 'bomb.eval'), []);
    assert.equal(report.status, 'done', report.message ?? '');
    assert.deepEqual(report.rejected, [{ line: 4, reason: 'archive entry too large: bomb.eval › samples/3_epoch_1.json inflates to 600 MB (as the archive declares), over the 400 MB an entry may hold; it was not inflated, the other entries are read' }]);
    const honest = await importWith('inspect-ctf.eval', []);
    assert.deepEqual(rows.map((r) => r.step_id), honest.rows.map((r) => r.step_id));
  });

  it('members inflated a few at a time (one per pass here) give the same records as in one pass; a member that is not JSON, or nested too deep, is a reject', async () => {
    const members = unzipSync(readFileSync(new URL('../fixtures/formats/inspect-ctf.eval', import.meta.url)));
    members['samples/0_epoch_1.json'] = strToU8('{"id": 0, "messages": [');
    members['samples/9_epoch_1.json'] = strToU8(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const zip = zipSync(members);
    const read = async (opts: EvalZipOptions) => {
      const out: unknown[] = [];
      for await (const e of evalZipEvents(zip, opts)) out.push(e);
      return out;
    };
    const whole = await read({});
    assert.deepEqual(await read({ batchBytes: 1 }), whole);
    assert.deepEqual(whole.map((e) => (e as { kind: string }).kind), ['record', 'reject', 'record', 'record', 'reject']);
    assert.match((whole[1] as { reason: string }).reason, /^samples\/0_epoch_1\.json: not JSON/);
    assert.match((whole[4] as { reason: string }).reason, /^samples\/9_epoch_1\.json: nested more than 200 levels deep/);
  });

  it('an archive whose entries use another compression (zstd) is refused whole, before anything is inflated', async () => {
    const zip = zipSync({ 'header.json': strToU8('{}') }, { level: 0 });
    const dv = new DataView(zip.buffer, zip.byteOffset);
    for (let o = 0; o + 4 < zip.length; o++) if (dv.getUint32(o, true) === 0x02014b50) dv.setUint16(o + 10, 93, true);
    await assert.rejects(read(zip), /the ZIP archive cannot be read \(header\.json: compression method 93\); an Inspect \.eval log compressed with zstd is not supported/);
  });
});

async function read(zip: Uint8Array) {
  for await (const _ of evalZipEvents(zip)) {
    /* drain */
  }
}
