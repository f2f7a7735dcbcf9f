/**
 * Curation on the page's pool (the real pool, export and MinHash workers, here in Node worker threads:
 * helpers/page-workers.ts): the store's labels and undo, splits and filters; one trainable rule everywhere (decision
 * 016: a step marked bad stays out of training unless explicitly set trainable — in the export, the dashboard counts,
 * the trajectories view, the filters and the inspector); every layout's Parquet read back, part files; exact and near
 * duplicates, PII. One pool for the file; each part loads the standard pool again (test/browser/curation-data.ts).
 */
import { after, before, describe, it } from 'node:test';
import { expect } from '@esm-bundle/chai';
import { type Table, tableFromIPC } from 'apache-arrow';
import { unzipSync } from 'fflate';
import { readParquet } from 'parquet-wasm/node';
import type { DatasetLayout, ExportDatasetOptions } from '../../src/contract/reports';
import { setCuration, setCurationWhere } from '../../src/curation/api';
import { filterWhere } from '../../src/curation/filter';
import { findNearDuplicates } from '../../src/curation/near-duplicates';
import { assignSplit } from '../../src/curation/split';
import { curationStore } from '../../src/curation/store';
import { exportPartsTo } from '../../src/export/parts';
import type { PoolClient } from '../../src/pool/client';
import { summarySql } from '../../src/views/dashboard/queries';
import { type Row, tableToRows } from '../../src/pool/rows';
import { loadTrajectory } from '../../src/views/inspector/queries';
import { insertSteps, loadStandardPool, trajectorySteps } from '../browser/curation-data';
import { MemoryFolder } from './helpers/memory-folder';
import { exporterFor, pageWorker, startPool } from './helpers/page-workers';

const minhashWorker = pageWorker('minhash');

let pool: PoolClient;
before(async () => {
  pool = await startPool('curation');
});
after(() => pool.terminate());

describe('curation store', () => {
  before(async () => {
    await pool.clear();
    await loadStandardPool(pool);
  });

  it('bulk-labels every step a composed filter selects, visible in SQL, and undoes exactly', async () => {
    const changes: string[][] = [];
    const off = pool.onChange((e) => changes.push(e.tables));
    const where = filterWhere({ agents: ['solver'], rewardMax: 0, status: 'complete' });
    const expected = await pool.rows(`SELECT step_id FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${where} ORDER BY step_id`);
    expect(expected.map((r) => r.step_id)).to.deep.equal(['p0-b:0', 'p2-a:0', 'p2-c:0', 'p3-b:0', 'p3-b:1']);
    const r = await setCurationWhere(pool, where, { quality: 'bad', trainable: false, addTags: ['low-reward'] });
    expect(r.steps).to.equal(5);
    const rows = await pool.rows(`SELECT step_id, quality, trainable, tags, reviewed_at IS NOT NULL AS reviewed FROM curation ORDER BY step_id`);
    expect(rows.map((x) => x.step_id)).to.deep.equal(expected.map((x) => x.step_id));
    for (const x of rows) expect(x).to.include({ quality: 'bad', trainable: false, reviewed: true }) && expect(x.tags).to.deep.equal(['low-reward']);
    const [t] = await pool.rows(`SELECT bad_steps, trainable_steps FROM trajectories WHERE trajectory_uid = 'p3-b'`);
    expect(t).to.deep.equal({ bad_steps: 2, trainable_steps: 0 });
    expect(changes.some((c) => c.includes('curation'))).to.equal(true);

    await setCuration(pool, ['p0-b:0', "it's:not-a-step"], { addTags: ['x'], note: "o'neil said <b>hi</b>" });
    const [b] = await pool.rows(`SELECT tags, note, quality FROM curation WHERE step_id = 'p0-b:0'`);
    expect(b).to.deep.equal({ tags: ['low-reward', 'x'], note: "o'neil said <b>hi</b>", quality: 'bad' });

    const store = curationStore(pool);
    expect((await store.undo())?.steps).to.equal(2);
    const [b2] = await pool.rows(`SELECT tags, note FROM curation WHERE step_id = 'p0-b:0'`);
    expect(b2).to.deep.equal({ tags: ['low-reward'], note: null });
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE step_id = 'it''s:not-a-step'`))[0].n).to.equal(0);
    expect((await store.undo())?.steps).to.equal(5);
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
    expect(await store.undo()).to.equal(null);
    off();
  });

  it('labels whole trajectories and thousands of ids staged in chunks', async () => {
    const store = curationStore(pool);
    const r = await store.apply({ trajectoryUids: ['p3-a', 'p1-b'] }, { quality: 'good' });
    expect(r.steps).to.equal(3);
    const ids = Array.from({ length: 5000 }, (_, i) => `ghost-${i}:'x'`).concat(['p0-a:0']);
    expect((await setCuration(pool, ids, { trainable: false })).steps).to.equal(5001);
    const [n] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM curation WHERE NOT trainable`);
    expect(n.n).to.equal(5001);
    await store.undo();
    await store.undo();
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
  });

  it('text search and quality / tag filters compose; quotes in the search are escaped', async () => {
    const text = filterWhere({ text: 'ALICE@example' });
    const hits = await pool.rows(`SELECT DISTINCT trajectory_uid FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${text} ORDER BY 1`);
    expect(hits.map((h) => h.trajectory_uid)).to.deep.equal(['p2-a', 'p2-b', 'p2-c']);
    const quote = filterWhere({ text: "it's'); DROP TABLE steps; --" });
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${quote}`))[0].n).to.equal(0);
    expect((await pool.rows(`SELECT count(*)::INTEGER AS n FROM steps`))[0].n).to.equal(15);
    await setCuration(pool, ['p0-c:0'], { quality: 'meh', addTags: ['weird'] });
    const q = filterWhere({ quality: ['meh'], tags: ['weird', 'other'], models: ['m-small'] });
    expect((await pool.rows(`SELECT step_id FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${q}`)).map((x) => x.step_id)).to.deep.equal(['p0-c:0']);
    await curationStore(pool).undo();
  });

  it('splits deterministically by trajectory: same seed same split, no trajectory in both', async () => {
    const a = await assignSplit(pool, { valFraction: 0.4, seed: 's1' });
    const first = await pool.rows(`SELECT step_id, split FROM curation ORDER BY step_id`);
    expect(a.train + a.val).to.equal(15);
    expect(a.val).to.be.greaterThan(0);
    expect(a.train).to.be.greaterThan(0);
    const leak = await pool.rows(`SELECT trajectory_uid FROM steps JOIN curation USING (step_id) GROUP BY 1 HAVING count(DISTINCT split) > 1`);
    expect(leak).to.deep.equal([]);
    await assignSplit(pool, { valFraction: 0.4, seed: 'other' });
    await assignSplit(pool, { valFraction: 0.4, seed: 's1' });
    expect(await pool.rows(`SELECT step_id, split FROM curation ORDER BY step_id`)).to.deep.equal(first);
    const [m] = await pool.rows(`SELECT split_of('p0-a', 0.4, 's1') AS s`);
    expect(m.s).to.equal(first.find((r) => r.step_id === 'p0-a:0')?.split);
    await assignSplit(pool, { valFraction: 0.5, by: 'prompt', seed: 'g' });
    const groups = await pool.rows(`SELECT prompt_uid FROM steps JOIN curation USING (step_id) GROUP BY 1 HAVING count(DISTINCT split) > 1`);
    expect(groups).to.deep.equal([]);
    await pool.exec('DELETE FROM curation');
  });
});

async function exportedUids(pool: PoolClient): Promise<string[]> {
  const blob = await exporterFor(pool).exportDataset({ layout: 'rl_steps', format: 'jsonl' });
  const lines = (await blob.text()).trim().split('\n').filter(Boolean);
  return [...new Set(lines.map((l) => String(JSON.parse(l).trajectory_uid)))].sort();
}

describe('quality bad ⇒ not trainable unless explicitly set', () => {
  before(async () => {
    await pool.clear();
    await loadStandardPool(pool);
  });

  it('a bad label keeps a trajectory out of the default export and out of every trainable count', async () => {
    const store = curationStore(pool);
    expect(await exportedUids(pool)).to.include('p0-a');
    const [before] = await pool.rows(summarySql(''));

    await store.apply({ trajectoryUids: ['p0-a'] }, { quality: 'bad' });
    expect(await exportedUids(pool)).to.not.include('p0-a');
    const [after] = await pool.rows(summarySql(''));
    expect(after.trainable_steps).to.equal(Number(before.trainable_steps) - 1);
    const [view] = await pool.rows(`SELECT trainable_steps, bad_steps FROM trajectories WHERE trajectory_uid = 'p0-a'`);
    expect(view).to.deep.equal({ trainable_steps: 0, bad_steps: 1 });
    const yes = await pool.rows(`SELECT DISTINCT s.trajectory_uid FROM steps s LEFT JOIN curation c USING (step_id) WHERE ${filterWhere({ trainable: 'yes' })}`);
    expect(yes.map((r) => r.trajectory_uid)).to.not.include('p0-a');
    expect((await loadTrajectory(pool, 'p0-a'))[0].trainable).to.equal(false);

    // an explicit trainable label wins over the quality
    await store.apply({ trajectoryUids: ['p0-a'] }, { trainable: true });
    expect(await exportedUids(pool)).to.include('p0-a');
    const [again] = await pool.rows(`SELECT trainable_steps FROM trajectories WHERE trajectory_uid = 'p0-a'`);
    expect(again.trainable_steps).to.equal(1);
    expect((await loadTrajectory(pool, 'p0-a'))[0].trainable).to.equal(true);

    // a good label keeps the default; an error step stays out
    await store.apply({ trajectoryUids: ['p0-a'] }, { quality: 'good', trainable: null });
    expect(await exportedUids(pool)).to.include('p0-a');
    expect(await exportedUids(pool)).to.not.include('p2-c');
    await store.undo();
    await store.undo();
    await store.undo();
    expect((await pool.rows('SELECT count(*)::INTEGER AS n FROM curation'))[0].n).to.equal(0);
  });
});

const MESSAGE_FIELDS = ['role', 'content', 'reasoning_content', 'name', 'tool_call_id', 'tool_calls', 'parts'];
const STEP_MESSAGE_FIELDS = ['role', 'content', 'reasoning', 'name', 'tool_call_id', 'tool_calls', 'parts', 'is_error'];

describe('curation exports', () => {
  let exporter: ReturnType<typeof exporterFor>;
  before(async () => {
    await pool.clear();
    await loadStandardPool(pool);
    exporter = exporterFor(pool);
  });

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
    // into a picked folder: the same files, under a sub-folder of their own
    const root = new MemoryFolder();
    const r = await exportPartsTo(deps, { layout: 'sft', format: 'jsonl' }, { partitionBy: ['channel', 'data_source'] }, root as unknown as FileSystemDirectoryHandle);
    const lines: string[] = [];
    for (const f of r.files) {
      let dir = root;
      const segs = f.path.split('/');
      const name = segs.pop() as string;
      for (const s of segs) dir = await dir.getDirectoryHandle(s);
      lines.push(...((dir.entries.get(name) as { text: string }).text.trim().split('\n')));
    }
    expect(r.files.map((f) => f.path.slice(r.folder.length + 1))).to.include('channel=val/data_source=trivia/part-0.jsonl');
    expect(lines.length).to.equal((await parquet({ layout: 'sft' })).rows.length);
    let bad = '';
    await exportPartsTo(deps, { layout: 'sft', format: 'parquet' }, { partitionBy: ['data_source; DROP TABLE steps' as 'data_source'] }).catch((e) => (bad = String(e)));
    expect(bad).to.include('cannot split an export by data_source; DROP TABLE steps');
  });
});

const long = 'Explain step by step how to compute the sum of the first ten prime numbers and check every intermediate result twice before answering';

describe('dedupe and PII helpers', () => {
  before(async () => {
    await pool.clear();
    await loadStandardPool(pool);
    const near = [
      trajectorySteps({ uid: 'n1', prompt: 'pn', question: long, answer: 'The sum is 129 after checking each prime.' }),
      trajectorySteps({ uid: 'n2', prompt: 'pn', question: `${long}!`, answer: 'The sum is 129 after checking each prime.' }),
      trajectorySteps({ uid: 'n3', prompt: 'pn', question: long.replace('twice', 'carefully twice'), answer: 'The sum is 129 after checking each prime.' }),
    ].flat();
    await insertSteps(pool, near, 'near.jsonl');
    // the same conversation again, in another file: exact duplicates up to case and whitespace
    const copy = trajectorySteps({ uid: 'dup-of-p0-a', prompt: 'p0', question: 'what is   6*7?', answer: 'The answer to p0-a is 42.' });
    await insertSteps(pool, copy, 'copy.jsonl');
  });

  it('exact_duplicates finds the same conversation across files, keeping the first copy', async () => {
    const rows = await pool.rows(`SELECT step_id, dup_rank, dup_count FROM exact_duplicates WHERE dup_count > 1 ORDER BY step_id`);
    expect(rows).to.deep.equal([
      { step_id: 'dup-of-p0-a:0', dup_rank: 2, dup_count: 2 },
      { step_id: 'p0-a:0', dup_rank: 1, dup_count: 2 },
      // the first (tool-call) steps of the p3 rollouts are identical
      { step_id: 'p3-a:0', dup_rank: 1, dup_count: 3 },
      { step_id: 'p3-b:0', dup_rank: 2, dup_count: 3 },
      { step_id: 'p3-c:0', dup_rank: 3, dup_count: 3 },
    ]);
  });

  it('near-duplicates in a worker: same clusters on every run, written to near_duplicates', async () => {
    const r1 = await findNearDuplicates(pool, { worker: minhashWorker, threshold: 0.6 });
    const first = await pool.rows(`SELECT step_id, cluster_id, similarity FROM near_duplicates ORDER BY step_id`);
    const r2 = await findNearDuplicates(pool, { worker: minhashWorker, threshold: 0.6 });
    expect(await pool.rows(`SELECT step_id, cluster_id, similarity FROM near_duplicates ORDER BY step_id`)).to.deep.equal(first);
    expect(r2).to.deep.equal(r1);
    const cluster = first.filter((x) => String(x.step_id).startsWith('n'));
    expect(cluster.map((x) => x.step_id)).to.deep.equal(['n1:0', 'n2:0', 'n3:0']);
    expect(new Set(cluster.map((x) => x.cluster_id))).to.deep.equal(new Set(['n1:0']));
    const clusterOf = new Map(first.map((x) => [x.step_id, x.cluster_id]));
    expect(first.filter((x) => x.cluster_id === 'n1:0').length).to.equal(3);
    expect(clusterOf.get('dup-of-p0-a:0')).to.equal(clusterOf.get('p0-a:0')).and.to.be.a('string');
    expect(clusterOf.get('p3-b:0')).to.equal('p3-a:0');
    expect(clusterOf.get('p1-a:0')).to.not.equal('n1:0');
  });

  it('pii_scan and redact_pii find and replace e-mails, phones and keys', async () => {
    const scan = await pool.rows(`SELECT step_id, kinds FROM pii_scan ORDER BY step_id`);
    expect(scan.map((r) => r.step_id)).to.deep.equal(['p2-a:0', 'p2-b:0', 'p2-c:0']);
    expect(scan[1].kinds).to.deep.equal(['email', 'phone', 'secret']);
    const [r] = await pool.rows(`SELECT redact_pii(response_text) AS t, redact_messages(messages)[2].content AS u FROM steps WHERE step_id = 'p2-b:0'`);
    expect(r).to.deep.equal({ t: 'Call [phone], key [secret]', u: 'Mail [email] about 2+2' });
  });
});
