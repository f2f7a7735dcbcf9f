/**
 * One fixture of every built-in format through the page's importer (ingest worker → pool worker → DuckDB-WASM),
 * read back from the pool and compared with the golden snapshot the Node loop keeps for it
 * (test/fixtures/snapshots/, test/unit/formats-golden.test.ts): what the pool stored is what the pipeline made.
 */
import { expect } from '@esm-bundle/chai';
import type { WorkerImporter } from '../../src/ingest/importer';
import { NORMALIZERS } from '../../src/ingest/normalizers';
import type { PoolClient } from '../../src/pool/client';
import { emptyPagePool, fixture, importerFor } from './helpers';

/** One file per format (the Node loop covers every fixture). */
const FILES = [
  'core/chat.jsonl',
  'formats/devtools-export.har',
  'formats/otlp-genai.json',
  'formats/langfuse-trace.json',
  'formats/phoenix-spans.jsonl',
  'formats/atif-trajectory.json',
  'formats/swe-agent.traj',
  'formats/tau-bench-results.json',
  'formats/episode-conversations.jsonl',
  'formats/openhands-eval-output.jsonl',
  'formats/openai-log-requests.jsonl',
  'formats/anthropic-requests.jsonl',
  'formats/sharegpt-array.json',
  'formats/verl-prompts.jsonl',
  'formats/step-records.jsonl',
  'formats/openai-responses.jsonl',
  'formats/harbor-traces.json',
  'formats/vcr-openai.yaml',
  'formats/claude-code-session.jsonl',
  'formats/codex-rollout.jsonl',
  'formats/openai-batch-output.jsonl',
  'formats/llamafactory-dpo-sharegpt.json',
  'formats/inspect-eval-log.json',
  'formats/langfuse-blob-observations.jsonl',
  'formats/gemini-cli-session.jsonl',
  'formats/cline-xml-task.json',
  'formats/pi-session.jsonl',
  'formats/session-trace-simple.jsonl',
  'formats/opencode-export.json',
  'formats/aider.llm.history',
  'formats/tau2-bench-results.json',
];

type Obj = Record<string, unknown>;
interface Snapshot {
  report: { format: string; rows: number; status: string };
  steps: Obj[];
}

const list = (v: unknown): unknown[] => (v == null ? [] : Array.isArray(v) ? v : Array.from(v as Iterable<unknown>));

/** The fields compared, from a snapshot step: its prompt's roles with the `… the N message(s) of <step>` references expanded. */
function expected(steps: Obj[], source: string): Obj[] {
  const roles = new Map<string, string[]>();
  return steps.map((s) => {
    const seq: string[] = [];
    for (const m of (s.messages as unknown[]) ?? []) {
      const ref = typeof m === 'string' ? /of (.+)$/.exec(m) : null;
      if (ref) seq.push(...(roles.get(ref[1]) ?? ['?']));
      else seq.push(String((m as Obj).role));
    }
    roles.set(String(s.step_id), seq);
    const response = (s.response ?? null) as Obj | null;
    const calls = (response?.tool_calls ?? []) as { function: { name: string; arguments: string } }[];
    const row = {
      step_id: s.step_id, trajectory_uid: s.trajectory_uid, prompt_uid: s.prompt_uid, step_index: s.step_index, source_line: s.source_line ?? null,
      source_format: s.source_format, reward: s.reward ?? null, status: s.status, finish_reason: s.finish_reason ?? null,
      roles: seq.join(','), tools: calls.map((c) => c.function.name).join(','), args: calls.map((c) => c.function.arguments).join('\n'), response_text: s.response_text ?? null,
    };
    return JSON.parse(JSON.stringify(row).split('<source>').join(source)) as Obj;
  });
}

describe('import one file of every built-in format', () => {
  let pool: PoolClient;
  let importer: WorkerImporter;
  const formats: string[] = [];
  before(async () => {
    pool = await emptyPagePool();
    importer = importerFor(pool);
  });

  for (const file of FILES) {
    it(`${file} is stored as its snapshot says`, async () => {
      const res = await fetch(`/test/fixtures/snapshots/${file}.json`);
      expect(res.ok, `snapshot of ${file}`).to.equal(true);
      const snap = (await res.json()) as Snapshot;
      formats.push(snap.report.format);
      const [rep] = await importer.importFiles([await fixture(file)]);
      expect(rep.status, rep.message ?? '').to.equal(snap.report.status);
      expect(rep.format).to.equal(snap.report.format);
      expect(rep.rows).to.equal(snap.report.rows);
      expect(rep.added).to.equal(snap.report.rows);
      const rows = await pool.rows(`SELECT step_id, trajectory_uid, prompt_uid, step_index, source_line, source_format, reward, status, finish_reason, response_text, source_id,
          list_transform(messages, m -> m.role) AS roles, list_transform(response.tool_calls, t -> t.function.name) AS tools,
          list_transform(response.tool_calls, t -> t.function.arguments) AS args
        FROM steps WHERE import_id = ${rep.importId}`);
      const source = String(rows[0]?.source_id ?? '').slice(0, 12);
      const got = rows.map((r) => ({
        step_id: r.step_id, trajectory_uid: r.trajectory_uid, prompt_uid: r.prompt_uid, step_index: Number(r.step_index), source_line: r.source_line == null ? null : Number(r.source_line),
        source_format: r.source_format, reward: r.reward == null ? null : Number(r.reward), status: r.status, finish_reason: r.finish_reason ?? null,
        roles: list(r.roles).join(','), tools: list(r.tools).join(','), args: list(r.args).join('\n'), response_text: r.response_text ?? null,
      }));
      const byId = (a: Obj, b: Obj) => (String(a.step_id) < String(b.step_id) ? -1 : 1);
      expect(got.sort(byId)).to.deep.equal(expected(snap.steps, source).sort(byId));
      const [t] = await pool.rows(`SELECT count(*) AS n FROM trajectories WHERE trajectory_uid IN (SELECT trajectory_uid FROM steps WHERE import_id = ${rep.importId})`);
      expect(Number(t.n)).to.equal(new Set(got.map((r) => r.trajectory_uid)).size);
    });
  }

  it('covers every normalizer of the registry', () => {
    expect([...new Set(formats)].sort()).to.deep.equal(NORMALIZERS.map((n) => n.id).sort());
  });
});
