/**
 * What the import page and the CLI take from each normalizer besides its output: a distinct label for the
 * format list, the id stored as `source_format` and named by `--format`, and `parallel` (a large JSON Lines
 * file of a stateless format is read in shards: src/ingest/shards.ts). Written to kill the id / label /
 * `parallel` mutants StrykerJS found in src/ingest/normalizers/*.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generic } from '../../src/ingest/normalizers/generic';
import { NORMALIZERS } from '../../src/ingest/normalizers/index';
import { planShards } from '../../src/ingest/shards';

const all = [...NORMALIZERS, generic];

/** One record of each stateless format, as a line of its JSON Lines files. */
const LINES: Record<string, unknown> = {
  atif: { schema_version: 'ATIF-v1.2', session_id: 's1', agent: { name: 'a', model_name: 'm' }, steps: [{ step_id: 1, source: 'agent', message: 'hi' }] },
  'tau-bench': { task_id: 1, reward: 1, traj: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], info: {} },
  conversations: { episode_id: 'e1', messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }], reward: 1 },
  sharegpt: { conversations: [{ from: 'human', value: 'q' }, { from: 'gpt', value: 'a' }] },
  verl: { prompt: [{ role: 'user', content: 'q' }], data_source: 'gsm8k', reward_model: { ground_truth: '4' }, extra_info: { index: 0 } },
  'llama-factory': { instruction: 'q', input: '', output: 'a', chosen: 'a', rejected: 'b' },
};

describe('normalizer registry entries', () => {
  it('ids are the format names users see in source_format and --format; labels are non-empty and distinct', () => {
    const ids = all.map((n) => n.id);
    for (const id of ['atif', 'conversations', 'generic', 'harbor', 'inspect', 'llama-factory', 'sharegpt', 'step-record', 'tau-bench', 'verl']) assert.ok(ids.includes(id), id);
    assert.equal(new Set(ids).size, ids.length);
    const labels = all.map((n) => n.label.trim());
    assert.ok(labels.every((l) => l.length > 3), JSON.stringify(labels));
    assert.equal(new Set(labels).size, labels.length);
  });

  it('a large JSON Lines file of a stateless format is planned as shards', async () => {
    for (const [id, line] of Object.entries(LINES)) {
      const text = `${Array.from({ length: 40 }, () => JSON.stringify(line)).join('\n')}\n`;
      const plan = await planShards(new File([text], `${id}.jsonl`), NORMALIZERS, { shards: { count: 2 }, shardMinBytes: 64 } as never);
      assert.equal(plan?.normalizer.id, id, `${id}: ${plan ? plan.normalizer.id : 'no shard plan'}`);
      assert.equal(plan?.bounds.length, 3, id);
    }
  });
});
