// Shards agree with one run (issue 22, decision 011 across shards): the fixtures imported as 2 shards (`import --shard
// i/2 --steps-out`, what each Ray task runs) and merged (`merge`, what the Ray example runs before its prompt groups)
// give the same steps and trajectories as one import of the whole listing, and a shard written twice adds nothing.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runImport } from '../../src/cli/import';
import { NativePool } from '../../src/cli/native-pool';
import { mergeShardSteps, writeShardSteps } from '../../src/cli/shards';
import { scratchDir } from '../scratch.mjs';

const tmp = scratchDir('aw-cli-shards-');
// the check is about sharding, not formats (test/unit/page-cli-agree covers every format): the fixtures whose steps join
// across files — OTel traces split over otel-genai-legacy-logs (shard 0) and otlp-genai (shard 1), langfuse-blob
// observations (0) and scores (1), openai-batch input (1) and output (0) — and two plain ones; shards deal the sorted
// listing round-robin, so each pair is split between the two shards
const DIR = 'test/fixtures/formats';
const FILES = [
  'langfuse-blob-observations.jsonl', 'langfuse-blob-scores.jsonl', 'langfuse-blob-traces.jsonl', 'openai-batch-input.jsonl', 'openai-batch-output.jsonl',
  'otel-genai-current.jsonl', 'otel-genai-legacy-logs.json', 'otlp-genai.json', 'sharegpt-llamafactory.jsonl', 'step-records.jsonl',
].map((f) => join(DIR, f));
// import_id is each pool's own numbering; everything else is the step
const stepsSql = 'SELECT * EXCLUDE (import_id) REPLACE (map_entries(metadata) AS metadata) FROM steps ORDER BY step_id';
const json = (rows: unknown[]) => rows.map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));

describe('CLI shards', () => {
  const pools: NativePool[] = [];
  const open = async (name: string) => {
    const p = await NativePool.open(join(tmp, name));
    pools.push(p);
    return p;
  };
  let single: string[];
  let merged: NativePool;
  let files: string[];
  before(async () => {
    const one = await open('one.duckdb');
    await runImport(one, FILES, { threads: 1 });
    single = json(await one.rows(stepsSql));
    files = [];
    for (const i of [0, 1]) {
      const shard = await open(`shard-${i}.duckdb`);
      const r = await runImport(shard, FILES, { threads: 1, shard: `${i}/2` });
      files.push(await writeShardSteps(shard, join(tmp, 'steps'), `${i}/2`, r));
      // a retried task writes its shard again: it replaces the file
      if (i === 1) assert.equal(await writeShardSteps(shard, join(tmp, 'steps'), `${i}/2`, r), files[1]);
    }
    assert.deepEqual(readdirSync(join(tmp, 'steps')), ['steps-00000-of-00002.parquet', 'steps-00001-of-00002.parquet']);
    merged = await open('merged.duckdb');
    await mergeShardSteps(merged, [join(tmp, 'steps', '*.parquet')]);
  });
  after(async () => {
    for (const p of pools) await p.close();
  });

  it('2 shards merged give the steps of one run, row for row (the OTel trace split over two files joined as one pool joins it)', async () => {
    const mine = json(await merged.rows(stepsSql));
    assert.ok(single.length > 20, `single run: ${single.length} steps`);
    assert.equal(mine.length, single.length);
    for (let i = 0; i < single.length; i++) assert.equal(mine[i], single[i], `step row ${i} differs`);
  });

  it('and the same trajectories (stats, last steps)', async () => {
    const sql = 'SELECT * FROM trajectory_stats ORDER BY trajectory_uid';
    assert.deepEqual(json(await merged.rows(sql)), json(await pools[0].rows(sql)));
  });
});
