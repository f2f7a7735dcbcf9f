import { expect } from '@esm-bundle/chai';
import type { WorkerImporter } from '../../src/ingest/importer';
import { NORMALIZERS } from '../../src/ingest/normalizers';
import type { PoolClient } from '../../src/pool/client';
import { fixture, importerFor, startPool } from './helpers';

interface Expected {
  file: string;
  format: string;
  steps: number;
  /** Role sequences of `messages` that some step must have. */
  roles: string[][];
  /** Distinct tool names called in responses (sorted). */
  tools: string[];
  /** Non-null rewards (sorted). */
  rewards: number[];
  /** The source's own trajectory ids (sorted); null = the source has none, so ids are `{source_id[:12]}-{record}`. */
  ids: string[] | null;
  /** Trajectories whose steps came from several records (growing history joined). */
  linked?: number;
  prompt?: string;
  /** source_format of the rows when the source names its own (re-imported step records). */
  rowFormat?: string;
}

const EVERY: Expected[] = [
  { file: 'core/chat.jsonl', format: 'openai-chat', steps: 40, roles: [['system', 'user'], ['system', 'user', 'assistant', 'tool']], tools: ['calculator'], rewards: [], ids: null },
  { file: 'formats/devtools-export.har', format: 'har', steps: 5, roles: [['system', 'user'], ['system', 'user', 'assistant', 'tool']], tools: ['check_stock', 'get_weather'], rewards: [], ids: null },
  {
    file: 'formats/otlp-genai.json',
    format: 'otel',
    steps: 4,
    roles: [['system', 'user'], ['system', 'user', 'assistant', 'tool']],
    tools: ['lookup_invoice', 'search_trains'],
    rewards: [],
    ids: ['0af7651916cd43dd8448eb211c80319c', '5b8efff798038103d269b633813fc60c'],
  },
  { file: 'formats/langfuse-trace.json', format: 'langfuse', steps: 2, roles: [['system', 'user', 'assistant', 'tool']], tools: ['calculator'], rewards: [1], ids: ['tr-7f3a2c'] },
  {
    file: 'formats/phoenix-spans.jsonl',
    format: 'phoenix',
    steps: 3,
    roles: [['system', 'user'], ['system', 'user', 'assistant', 'tool']],
    tools: ['run_sql'],
    rewards: [],
    ids: ['6c3fa8e0b1d24a11b1f0c0ffee000001', '6c3fa8e0b1d24a11b1f0c0ffee000002'],
  },
  {
    file: 'formats/atif-trajectory.json',
    format: 'atif',
    steps: 3,
    roles: [['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'tool', 'user']],
    tools: ['bash_command', 'mark_task_complete'],
    rewards: [1],
    ids: ['harbor-8c1e0d2a-hello-world-trial-3'],
  },
  { file: 'formats/swe-agent.traj', format: 'swe-agent', steps: 2, roles: [['system', 'user', 'assistant', 'user']], tools: ['str_replace_editor', 'submit'], rewards: [1], ids: null, prompt: 'astropy__astropy-13033' },
  { file: 'formats/tau-bench-results.json', format: 'tau-bench', steps: 5, roles: [['system', 'user', 'assistant', 'tool'], []], tools: ['find_user_id_by_name_zip'], rewards: [0, 0, 1], ids: null, prompt: 'tau:0' },
  { file: 'formats/episode-conversations.jsonl', format: 'conversations', steps: 4, roles: [['system', 'user', 'assistant', 'user']], tools: [], rewards: [0, 1], ids: ['ep-000117', 'ep-000118'], prompt: 'maze-seed-42' },
  { file: 'formats/openhands-eval-output.jsonl', format: 'openhands', steps: 2, roles: [['system', 'user', 'assistant', 'tool', 'tool']], tools: ['execute_bash', 'str_replace_editor'], rewards: [1], ids: null, prompt: 'django__django-11099' },
  { file: 'formats/openai-log-requests.jsonl', format: 'openai-log', steps: 8, roles: [['system', 'user', 'assistant', 'tool', 'tool']], tools: ['calculator', 'get_weather'], rewards: [], ids: null, linked: 1 },
  { file: 'formats/anthropic-requests.jsonl', format: 'anthropic', steps: 6, roles: [['system', 'user', 'assistant', 'tool']], tools: ['edit_file', 'read_file', 'run_tests'], rewards: [], ids: null, linked: 1 },
  { file: 'formats/sharegpt-array.json', format: 'sharegpt', steps: 4, roles: [['user'], ['user', 'assistant', 'user']], tools: [], rewards: [], ids: ['QWJhYvA_0', 'QWJhYvA_1', 'QWJhYvA_2'] },
  { file: 'formats/verl-prompts.jsonl', format: 'verl', steps: 4, roles: [['user'], ['system', 'user']], tools: [], rewards: [], ids: null, prompt: 'openai/gsm8k:0:ba9cbf26' },
  { file: 'formats/step-records.jsonl', format: 'step-record', steps: 4, roles: [['system', 'user', 'assistant', 'tool']], tools: ['edit_file', 'read_file', 'run_tests'], rewards: [1], ids: ['0123456789ab-0', '0123456789ab-3'], rowFormat: 'anthropic' },
  { file: 'formats/openai-responses.jsonl', format: 'openai-responses', steps: 5, roles: [['developer', 'user', 'assistant', 'user']], tools: ['search_products'], rewards: [], ids: ['resp_001', 'resp_010', 'resp_020'] },
  {
    file: 'formats/harbor-traces.json',
    format: 'harbor',
    steps: 5,
    roles: [['user'], ['user', 'assistant', 'user', 'assistant', 'user']],
    tools: [],
    rewards: [0, 1],
    ids: ['2026-11-28__14-02-05/csv-empty-column__Lm9Rt2b', '2026-11-28__14-02-05/csv-empty-column__Xk3pQ7a'],
    prompt: 'csv-empty-column',
  },
  { file: 'formats/vcr-openai.yaml', format: 'vcr', steps: 3, roles: [['user'], ['user', 'assistant', 'tool']], tools: ['get_weather'], rewards: [], ids: null },
  // formats-b: coding-agent transcripts, batch files, fine-tuning datasets, eval logs, Langfuse blob exports
  {
    file: 'formats/claude-code-session.jsonl',
    format: 'claude-code',
    steps: 6,
    roles: [['user'], ['user', 'assistant', 'tool', 'assistant', 'tool', 'tool']],
    tools: ['Bash', 'Edit', 'Grep', 'Read', 'Task'],
    rewards: [],
    ids: ['5d3f2c1a-8e4b-4f7a-9c2d-1b6e0a9f4c37', '5d3f2c1a-8e4b-4f7a-9c2d-1b6e0a9f4c37:agent-a7c41e0'],
  },
  { file: 'formats/codex-rollout.jsonl', format: 'codex', steps: 4, roles: [['system', 'user', 'user']], tools: ['apply_patch', 'local_shell', 'shell'], rewards: [], ids: ['0199e3a2-5c7b-7d41-9f0e-3b8a62c4d1f5'] },
  { file: 'formats/openai-batch-output.jsonl', format: 'openai-batch', steps: 4, roles: [[]], tools: ['lookup_order'], rewards: [], ids: null },
  { file: 'formats/llamafactory-dpo-sharegpt.json', format: 'llama-factory', steps: 4, roles: [['user'], ['system', 'user']], tools: [], rewards: [0, 0, 1, 1], ids: null },
  {
    file: 'formats/inspect-eval-log.json',
    format: 'inspect',
    steps: 3,
    roles: [['system', 'user'], ['system', 'user', 'assistant', 'tool']],
    tools: ['bash', 'submit'],
    rewards: [0, 1],
    ids: ['hY7tR2vN9qK4mW6pB3sD8f', 'pL3cX8zV1bN6mQ9wE2rT5y'],
    prompt: 'inspect:ctf_mini:1',
  },
  {
    file: 'formats/langfuse-blob-observations.jsonl',
    format: 'langfuse-blob',
    steps: 3,
    roles: [['user'], ['system', 'user', 'assistant', 'tool']],
    tools: ['get_invoice'],
    rewards: [],
    ids: ['0b9e4d27c1a64f3e8b5d2a9c7e1f6b04', '7f3c2a91e4b84d5f9a1c6e2b8d0f4a37'],
  },
];

const list = (v: unknown): unknown[] => (v == null ? [] : Array.isArray(v) ? v : Array.from(v as Iterable<unknown>));

describe('import one file of every built-in format', () => {
  let pool: PoolClient;
  let importer: WorkerImporter;
  before(async () => {
    pool = await startPool('formats-every', true);
    importer = importerFor(pool);
  });
  after(() => pool.terminate());

  it('covers every normalizer of the registry', () => {
    expect(EVERY.map((e) => e.format).sort()).to.deep.equal(NORMALIZERS.map((n) => n.id).sort());
  });

  for (const e of EVERY) {
    it(`${e.file} → ${e.format}`, async () => {
      const [rep] = await importer.importFiles([await fixture(e.file)]);
      expect(rep.status, rep.message ?? '').to.equal('done');
      expect(rep.format).to.equal(e.format);
      expect(rep.confidence).to.be.greaterThan(0.5);
      expect(rep.rows).to.equal(e.steps);
      expect(rep.added).to.equal(e.steps);
      const rows = await pool.rows(`SELECT trajectory_uid, prompt_uid, step_index, step_id, source_id, source_format, source_line, reward,
          list_transform(messages, m -> m.role) AS roles, response.role AS response_role,
          list_transform(response.tool_calls, t -> t.function.name) AS tools,
          list_transform(response.tool_calls, t -> t.function.arguments) AS args
        FROM steps WHERE import_id = ${rep.importId} ORDER BY source_line, trajectory_uid, step_index`);
      expect(rows.length).to.equal(e.steps);
      expect([...new Set(rows.map((r) => r.source_format))]).to.deep.equal([e.rowFormat ?? e.format]);
      expect(rows.every((r) => r.step_id === `${r.trajectory_uid}:${r.step_index}`)).to.equal(true);

      const roleSeqs = rows.map((r) => list(r.roles).join(','));
      for (const want of e.roles) expect(roleSeqs, `roles ${want.join(',')}`).to.include(want.join(','));
      expect(rows.filter((r) => r.response_role != null).every((r) => r.response_role === 'assistant'), 'responses are assistant messages').to.equal(true);

      const tools = [...new Set(rows.flatMap((r) => list(r.tools).map(String)))].sort();
      expect(tools).to.deep.equal(e.tools);
      for (const a of rows.flatMap((r) => list(r.args))) expect(() => JSON.parse(String(a)), `tool arguments are JSON text: ${a}`).not.to.throw();

      const rewards = rows.map((r) => r.reward).filter((r) => r != null).map(Number).sort((a, b) => a - b);
      expect(rewards).to.deep.equal(e.rewards);

      const ids = [...new Set(rows.map((r) => String(r.trajectory_uid)))].sort();
      const prefix = String(rows[0].source_id).slice(0, 12);
      if (e.ids) {
        expect(ids).to.deep.equal(e.ids);
        expect(ids.some((id) => id.startsWith(`${prefix}-`)), 'own ids, not the generic form').to.equal(false);
      } else expect(ids.every((id) => new RegExp(`^${prefix}-\\d+(-\\d+)?$`).test(id)), `generic ids: ${ids}`).to.equal(true);

      if (e.linked !== undefined) {
        const byTraj = new Map<string, Set<number>>();
        for (const r of rows) byTraj.set(String(r.trajectory_uid), (byTraj.get(String(r.trajectory_uid)) ?? new Set()).add(Number(r.source_line)));
        expect([...byTraj.values()].filter((lines) => lines.size > 1).length, 'records repeating a growing history form one trajectory').to.equal(e.linked);
      }
      if (e.prompt) expect(rows.map((r) => r.prompt_uid)).to.include(e.prompt);
      const [t] = await pool.rows(`SELECT count(*) AS n FROM trajectories WHERE trajectory_uid IN (SELECT trajectory_uid FROM steps WHERE import_id = ${rep.importId})`);
      expect(Number(t.n)).to.equal(ids.length);
    });
  }
});
