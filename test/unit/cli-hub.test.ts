// The CLI and the Hugging Face Hub, as a user runs it (bin/agentworld.mjs, HF_ENDPOINT / HF_TOKEN) against a loopback
// Hub: `import hf://…` with and without a token, a re-import that downloads no LFS file, and `run` reading remote
// Parquet by range only where --read names the address — the token in no output line.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DuckDBInstance } from '@duckdb/node-api';
import { type LoopbackHub, startHub } from '../e2e/hub-server.mjs';
import { scratchDir } from '../scratch.mjs';

const TOKEN = 'hf_cliSecretToken0123456789abc';
const chat = (i: number) => `${JSON.stringify({ messages: [{ role: 'user', content: `q${i}` }, { role: 'assistant', content: `a${i}` }] })}\n`;

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/agentworld.mjs', ...args], { env: { ...process.env, HF_TOKEN: '', ...env }, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('CLI and the Hub', () => {
  let hub: LoopbackHub;
  let dir: string;
  let pool: string;
  let parquetSize = 0;
  before(async () => {
    dir = scratchDir('aw-cli-hub-');
    pool = join(dir, 'pool.duckdb');
    const c = await (await DuckDBInstance.create(':memory:')).connect();
    const pq = join(dir, 't.parquet');
    await c.run(`COPY (SELECT i AS id, i % 3 AS label, md5(i::VARCHAR) || md5((2 * i)::VARCHAR) AS text FROM range(20000) t(i)) TO '${pq}' (FORMAT parquet, ROW_GROUP_SIZE 4096)`);
    const parquet = new Uint8Array(readFileSync(pq));
    parquetSize = parquet.length;
    const files: Record<string, string> = { 'README.md': '# card\n', 'data/b.jsonl': chat(2).repeat(2), 'data/a.jsonl': chat(1).repeat(3) };
    // column data corrupted, footer intact: parquet-wasm aborts its wasm instance on it
    const bad = parquet.slice();
    for (let i = 64; i < bad.length / 2; i += 7) bad[i] ^= 0xff;
    hub = await startHub({ pageSize: 2, cdn: true, datasets: { 'acme/gated': { files, token: TOKEN }, 'acme/tables': { files: { 'train.parquet': parquet, 'bad.parquet': bad } } } });
  });
  after(async () => {
    await hub.close();
  });

  it('import hf://…: refused without HF_TOKEN (saying why), every trace file with it; a re-import downloads no LFS file', async () => {
    const env = { HF_ENDPOINT: hub.endpoint };
    const denied = await cli(['import', 'hf://datasets/acme/gated', '--pool', pool], env);
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /private or gated/);
    hub.reset();
    const ok = await cli(['import', 'hf://datasets/acme/gated', '--pool', pool, '--json'], { ...env, HF_TOKEN: TOKEN });
    assert.equal(ok.code, 0, ok.stderr);
    const report = JSON.parse(ok.stdout);
    assert.deepEqual(report.reports.map((r: { file: string; status: string; added: number }) => [r.file, r.status, r.added]), [
      ['hf://datasets/acme/gated/data/a.jsonl', 'done', 3],
      ['hf://datasets/acme/gated/data/b.jsonl', 'done', 2],
    ]);
    assert.match(ok.stderr, /skipped\s+README\.md: the dataset card/);
    for (const r of hub.log) assert.equal(r.authorization, r.server === 'hub' ? `Bearer ${TOKEN}` : null, `${r.server} ${r.path}`);
    hub.reset();
    const again = await cli(['import', 'https://huggingface.co/datasets/acme/gated/tree/main/data', '--pool', pool, '--json'], { ...env, HF_TOKEN: TOKEN });
    assert.deepEqual(JSON.parse(again.stdout).reports.map((r: { status: string }) => r.status), ['unchanged', 'unchanged']);
    assert.equal(hub.log.filter((r) => r.path.includes('/resolve/')).length, 0);
    for (const out of [denied, ok, again]) assert.ok(!out.stdout.includes(TOKEN) && !out.stderr.includes(TOKEN));
  });

  it('run: read_parquet of a remote file only under an address --read names, by range, the bytes said on stderr', async () => {
    const nb = join(dir, 'remote.md');
    writeFileSync(nb, "---\ntitle: r\n---\n\n```sql id=by_label\nSELECT label, count(*)::INTEGER AS n FROM read_parquet('hf://datasets/acme/tables/train.parquet') GROUP BY label ORDER BY label\n```\n");
    const env = { HF_ENDPOINT: hub.endpoint };
    const refused = await cli(['run', nb, '--pool', pool, '--json'], env);
    assert.equal(refused.code, 1);
    assert.match(JSON.parse(refused.stdout).cells[0].error, /does not name this address; add --read hf:\/\/datasets\/acme\/tables\/train\.parquet/);
    hub.reset();
    const ran = await cli(['run', nb, '--pool', pool, '--json', '--read', 'hf://datasets/acme/tables'], env);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout).cells.map((c: { status: string; rows: number }) => [c.status, c.rows]), [['done', 3]]);
    const m = /fetched [\d.]+ [KM]?B of [\d.]+ [KM]?B in \d+ requests; 1 of 3 columns \(label\)/.exec(ran.stderr);
    assert.ok(m, ran.stderr);
    assert.ok(hub.bytesSent() < parquetSize / 5, `${hub.bytesSent()} of ${parquetSize}`);
    // a corrupt file fails its cell with a message; the run ends normally (its reader's abort does not end the process)
    const nbBad = join(dir, 'bad.md');
    writeFileSync(nbBad, "---\ntitle: b\n---\n\n```sql id=bad\nSELECT count(*) AS n, max(text) AS t FROM read_parquet('hf://datasets/acme/tables/bad.parquet')\n```\n");
    const broken = await cli(['run', nbBad, '--pool', pool, '--json', '--read', 'hf://datasets/acme/tables'], env);
    assert.equal(broken.code, 1, broken.stderr);
    assert.match(JSON.parse(broken.stdout).cells[0].error, /The Parquet reader stopped on this file \(unreachable: the file's data is corrupt/);
    assert.ok(!existsSync(`${pool}.remote-${process.pid}`));
    assert.deepEqual(
      (await import('node:fs')).readdirSync(dir).filter((f) => f.includes('.remote-')),
      [],
      'the run removed its remote folder',
    );
  });
});
