import { expect } from '@esm-bundle/chai';
import { type Table, tableFromIPC } from 'apache-arrow';
import { unzipSync } from 'fflate';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import type { DatasetLayout, ExportDatasetOptions } from '../../src/contract/reports';
import { setCurationWhere } from '../../src/curation/api';
import { filterWhere } from '../../src/curation/filter';
import { curationStore } from '../../src/curation/store';
import type { PoolClient } from '../../src/pool/client';
import { type Row, tableToRows } from '../../src/pool/rows';
import { exportPartsTo } from '../../src/export/parts';
import { loadStandardPool } from './curation-data';
import { exporterFor, parquetWasmUrl, startPool } from './helpers';

const MESSAGE_FIELDS = ['role', 'content', 'reasoning_content', 'name', 'tool_call_id', 'tool_calls', 'parts'];
const STEP_MESSAGE_FIELDS = ['role', 'content', 'reasoning', 'name', 'tool_call_id', 'tool_calls', 'parts'];

describe('curation exports', () => {
  let pool: PoolClient;
  let exporter: ReturnType<typeof exporterFor>;
  before(async () => {
    pool = await startPool('curation-export', true);
    await loadStandardPool(pool);
    exporter = exporterFor(pool);
    await initParquet({ module_or_path: parquetWasmUrl });
  });
  after(() => pool.terminate());

  async function parquet(opts: Omit<ExportDatasetOptions, 'format'>): Promise<{ table: Table; rows: Row[] }> {
    const blob = await exporter.exportDataset({ ...opts, format: 'parquet' });
    const table = tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream());
    return { table, rows: tableToRows(table) };
  }

  function fieldNames(t: Table, col: string): string[] {
    const f = t.schema.fields.find((x) => x.name === col);
    if (!f) throw new Error(`no column ${col}`);
    let type = f.type;
    while (type.children?.length === 1 && !('children' in type && String(type).startsWith('Struct'))) type = type.children[0].type;
    return type.children.map((c: { name: string }) => c.name);
  }

  const columns: Record<DatasetLayout, string[]> = {
    steps: ['step_id', 'trajectory_uid', 'prompt_uid', 'messages', 'response', 'reward', 'quality', 'trainable', 'tags', 'split'],
    sft: ['trajectory_uid', 'step_id', 'prompt_uid', 'data_source', 'messages', 'tools', 'reward'],
    rl_steps: ['step_id', 'trajectory_uid', 'prompt_uid', 'step_index', 'is_last', 'data_source', 'prompt', 'response', 'reward', 'prompt_ids', 'response_ids', 'rollout_log_probs'],
    verl_prompts: ['data_source', 'prompt', 'ability', 'reward_model', 'extra_info', 'prompt_uid', 'trajectory_uid', 'step_id'],
    dpo: ['prompt_uid', 'prompt', 'chosen', 'rejected', 'chosen_reward', 'rejected_reward', 'margin', 'chosen_step_id', 'rejected_step_id'],
  };

  for (const layout of Object.keys(columns) as DatasetLayout[]) {
    it(`${layout} Parquet reads back with its documented columns and nested types`, async () => {
      const { table, rows } = await parquet({ layout });
      const names = table.schema.fields.map((f) => f.name);
      for (const c of columns[layout]) expect(names, `${layout}.${c}`).to.include(c);
      expect(rows.length).to.be.greaterThan(0);
      const msgCol = { steps: 'messages', sft: 'messages', rl_steps: 'prompt', verl_prompts: 'prompt', dpo: 'chosen' }[layout];
      expect(fieldNames(table, msgCol)).to.deep.equal(layout === 'steps' ? STEP_MESSAGE_FIELDS : MESSAGE_FIELDS);
      if (layout === 'verl_prompts') {
        expect(fieldNames(table, 'reward_model')).to.deep.equal(['style', 'ground_truth']);
        expect(rows[0].reward_model).to.deep.equal({ style: 'rule', ground_truth: '42' });
        expect((rows[0].prompt as { role: string }[]).map((m) => m.role)).to.deep.equal(['system', 'user']);
        expect(rows.length).to.equal(4);
      }
      if (layout === 'rl_steps') {
        const r = rows.find((x) => x.step_id === 'p3-a:1')!;
        expect(r.prompt_ids).to.deep.equal([1, 2, 3]);
        expect((r.prompt as unknown[]).length).to.equal(4);
        expect((r.response as { content: string }).content).to.equal('The answer to p3-a is 42.');
      }
    });
  }

  it('exports trainable steps only by default, and respects the dashboard filter', async () => {
    const all = await parquet({ layout: 'rl_steps' });
    expect(all.rows.length).to.equal(14); // 15 steps, p2-c:0 failed
    expect(all.rows.map((r) => r.step_id)).to.not.include('p2-c:0');
    const withErrors = await parquet({ layout: 'rl_steps', trainableOnly: false });
    expect(withErrors.rows.length, 'the failed step has no response: not a trainable row either way').to.equal(14);
    const flagged = await parquet({ layout: 'rl_steps', trainableOnly: false, validOnly: false });
    expect(flagged.rows.length).to.equal(15);
    expect(flagged.rows.filter((r) => r.problem !== null).map((r) => [r.step_id, r.problem])).to.deep.equal([['p2-c:0', 'no response']]);

    await setCurationWhere(pool, filterWhere({ models: ['m-large'], rewardMax: 0 }), { quality: 'bad', trainable: false });
    const sft = await parquet({ layout: 'sft' });
    expect(sft.rows.map((r) => r.trajectory_uid)).to.not.include('p3-b');
    expect(sft.rows.length).to.equal(10);

    const where = filterWhere({ agents: ['solver'], status: 'complete' });
    const filtered = await parquet({ layout: 'rl_steps', where });
    const expected = await pool.rows(`SELECT step_id FROM steps s LEFT JOIN curation c USING (step_id)
      WHERE coalesce(c.trainable, s.status = 'ok') AND ${where} ORDER BY step_id`);
    expect(filtered.rows.map((r) => r.step_id).sort()).to.deep.equal(expected.map((r) => r.step_id));
    expect(filtered.rows.every((r) => r.data_source === 'gsm8k')).to.equal(true);
    expect(filtered.rows.map((r) => r.trajectory_uid)).to.not.include.members(['p3-b', 'p3-c', 'p1-a']);
    await curationStore(pool).undo();
  });

  it('DPO pairs come from one prompt group with different rewards, and honour the minimum margin', async () => {
    const { rows } = await parquet({ layout: 'dpo' });
    const group = new Map((await pool.rows('SELECT step_id, prompt_uid, reward FROM steps')).map((r) => [r.step_id, r]));
    expect(rows.map((r) => r.prompt_uid)).to.deep.equal(['p0', 'p2', 'p3']); // p1: all rewards equal
    for (const r of rows) {
      const c = group.get(String(r.chosen_step_id))!;
      const rej = group.get(String(r.rejected_step_id))!;
      expect(c.prompt_uid).to.equal(r.prompt_uid);
      expect(rej.prompt_uid).to.equal(r.prompt_uid);
      expect(Number(r.chosen_reward)).to.be.greaterThan(Number(r.rejected_reward));
      expect((r.chosen as { role: string }[])[0].role).to.equal('assistant');
      expect((r.prompt as { role: string }[]).map((m) => m.role)).to.deep.equal(['system', 'user']);
    }
    const big = await parquet({ layout: 'dpo', dpoMinMargin: 0.75 });
    expect(big.rows.map((r) => r.prompt_uid)).to.deep.equal(['p0', 'p2', 'p3']);
    const [huge] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM (${exporter.datasetSql({ layout: 'dpo', dpoMinMargin: 2 })})`);
    expect(huge.n).to.equal(0);
    const p0 = await parquet({ layout: 'dpo', dpoMinMargin: 0.75, where: `s.trajectory_uid <> 'p0-b'` });
    expect(p0.rows.map((r) => r.prompt_uid)).to.deep.equal(['p2', 'p3']);
  });

  it('sft per step is prompt + completion; redaction and split apply to every layout', async () => {
    const { rows } = await parquet({ layout: 'sft', sftPer: 'step' });
    expect(rows.length).to.equal(14);
    const r = rows.find((x) => x.step_id === 'p3-a:0')!;
    expect((r.completion as { role: string }[]).map((m) => m.role)).to.deep.equal(['assistant']);
    expect((r.prompt as unknown[]).length).to.equal(2);
    expect((r.messages as unknown[]).length).to.equal(3);

    const plain = JSON.stringify((await parquet({ layout: 'sft', where: `s.prompt_uid = 'p2'` })).rows);
    expect(plain).to.include('alice@example.com');
    const red = JSON.stringify((await parquet({ layout: 'sft', where: `s.prompt_uid = 'p2'`, redact: true })).rows);
    expect(red).to.not.include('alice@example.com');
    expect(red).to.not.include('sk-abcdefghijklmnopqrstuvwx');
    expect(red).to.not.include('555-123-4567');
    expect(red).to.include('[email]').and.include('[phone]').and.include('[secret]');

    const val = await parquet({ layout: 'rl_steps', split: 'val', splitColumn: 'channel' });
    expect(val.rows.map((x) => x.step_id)).to.deep.equal(['p1-c:0']);
  });

  it('an export split into part files (by data_source, at most N bytes each) holds the one-file export\'s rows, no group cut across files', async () => {
    const deps = { exporter, rows: (sql: string) => pool.rows(sql) };
    const fromParquet = (bytes: Uint8Array) => tableToRows(tableFromIPC(readParquet(bytes).intoIPCStream()));
    const sorted = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();
    const cases: { layout: DatasetLayout; maxFileBytes?: number; group: string }[] = [
      { layout: 'sft', group: 'trajectory_uid' },
      { layout: 'verl_prompts', group: 'prompt_uid' },
      { layout: 'rl_steps', maxFileBytes: 1, group: 'trajectory_uid' },
      { layout: 'dpo', maxFileBytes: 1, group: 'prompt_uid' },
    ];
    for (const c of cases) {
      const one = (await parquet({ layout: c.layout })).rows;
      const r = await exportPartsTo(deps, { layout: c.layout, format: 'parquet' }, { partitionBy: ['data_source'], maxFileBytes: c.maxFileBytes });
      const files = unzipSync(new Uint8Array(await r.zip!.arrayBuffer()));
      const manifest = JSON.parse(new TextDecoder().decode(files[`${r.folder}/_manifest.json`]));
      // the manifest's paths are relative to its own folder
      expect(manifest.files.map((f: { path: string }) => `${r.folder}/${f.path}`)).to.deep.equal(r.files.map((f) => f.path));
      const parts = r.files.map((f) => ({ ...f, rows: fromParquet(files[f.path]) }));
      expect(parts.every((p) => p.rows.length === r.files.find((f) => f.path === p.path)!.rows && p.rows.length > 0), `${c.layout}: every part has the rows its manifest entry says`).to.equal(true);
      expect(sorted(parts.flatMap((p) => p.rows)), `${c.layout}: the parts hold the one file's rows`).to.deep.equal(sorted(one));
      for (const p of parts) {
        expect(p.path).to.match(new RegExp(`^${r.folder}/data_source=${p.partition.data_source}/part-\\d+\\.parquet$`));
        if (c.layout !== 'dpo') expect(new Set(p.rows.map((x) => x.data_source)), p.path).to.deep.equal(new Set([p.partition.data_source]));
      }
      const fileOf = new Map<unknown, string>();
      for (const p of parts) for (const x of p.rows) {
        expect(fileOf.get(x[c.group]) ?? p.path, `${c.layout}: ${String(x[c.group])} in one file`).to.equal(p.path);
        fileOf.set(x[c.group], p.path);
      }
      if (c.maxFileBytes) expect(parts.length, `${c.layout}: cut into more files than partitions`).to.be.greaterThan(new Set(parts.map((p) => p.partition.data_source)).size);
    }
    // into a folder (OPFS here; a picked folder in the page): same files, under a sub-folder of their own
    const root = await navigator.storage.getDirectory();
    const r = await exportPartsTo(deps, { layout: 'sft', format: 'jsonl' }, { partitionBy: ['channel', 'data_source'] }, root);
    const lines: string[] = [];
    for (const f of r.files) {
      let dir = root;
      const segs = f.path.split('/');
      const name = segs.pop()!;
      for (const s of segs) dir = await dir.getDirectoryHandle(s);
      lines.push(...(await (await (await dir.getFileHandle(name)).getFile()).text()).trim().split('\n'));
    }
    expect(r.files.map((f) => f.path.slice(r.folder.length + 1))).to.include('channel=val/data_source=trivia/part-0.jsonl');
    expect(lines.length).to.equal((await parquet({ layout: 'sft' })).rows.length);
    await root.removeEntry(r.folder, { recursive: true });
    let bad = '';
    await exportPartsTo(deps, { layout: 'sft', format: 'parquet' }, { partitionBy: ['data_source; DROP TABLE steps' as 'data_source'] }).catch((e) => (bad = String(e)));
    expect(bad).to.include('cannot split an export by data_source; DROP TABLE steps');
  });
});
