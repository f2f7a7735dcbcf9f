/**
 * The README.md of a dataset folder the Hub understands (decision 073): YAML metadata the Hub and `datasets` read —
 * `configs` (one per layout, `data_files` per split), license, tags, size category, pretty name — and a body that
 * says how the data was made: the curation recipe (the notebook's SQL), what was left out and why, redaction counts,
 * token statistics, the source formats, and how to load it. Field names follow the Hub's dataset card
 * specification (huggingface_hub's DatasetCardData; hub-docs "datasets-cards", "datasets-manual-configuration").
 */
import { stringify } from 'yaml';

export interface CardSplit {
  /** The Hub's split name (`train`, `validation`, …). */
  split: string;
  /** The workbench's split value it holds (`val`, a channel name). */
  from: string;
  /** Glob of its files, relative to the folder. */
  path: string;
  rows: number;
  files: number;
  bytes: number;
}

export interface CardConfig {
  /** The layout (`sft`, `rl_steps`, …). */
  name: string;
  splits: CardSplit[];
  /** Rows the layout's checks left out, by reason (the export manifest's `excluded`). */
  leftOut: { reason: string; n: number }[];
}

export interface CardInput {
  title: string;
  license: string;
  tags: string[];
  configs: CardConfig[];
  /** Steps and trajectories of the selection, by the format they were imported from. */
  sourceFormats: { format: string; steps: number; trajectories: number }[];
  /** Steps the selection's filter matched before curation, and why steps were not exported. */
  selection: { where: string | null; stepsMatched: number; notTrainable: number; markedBad: number; trainableOnly: boolean; validOnly: boolean; splitColumn: string };
  /** The curation recipe: SQL (a notebook's cells, as its .sql download has them). */
  recipe: string | null;
  /** With `redact`: steps whose text had e-mails, phone numbers or secrets replaced, by kind. */
  redaction: { steps: number; kinds: Record<string, number> } | null;
  /** Under the active tokenizer profile, the selected steps' tokens (token_counts). */
  tokens: { tokenizer: string; steps: number; total: number; median: number; p95: number; max: number } | null;
  sessions: { files: number; harness: string; path: string } | null;
  createdAt: string;
}

/** The Hub's size categories (DatasetCardData size_categories), by number of rows. */
export function sizeCategory(n: number): string {
  const cuts: [number, string][] = [
    [1e3, 'n<1K'],
    [1e4, '1K<n<10K'],
    [1e5, '10K<n<100K'],
    [1e6, '100K<n<1M'],
    [1e7, '1M<n<10M'],
    [1e8, '10M<n<100M'],
    [1e9, '100M<n<1B'],
    [1e10, '1B<n<10B'],
    [1e11, '10B<n<100B'],
    [1e12, '100B<n<1T'],
  ];
  for (const [below, name] of cuts) if (n < below) return name;
  return 'n>1T';
}

const LAYOUT_SAYS: Record<string, string> = {
  steps: 'one row per LLM call, the step record as it is (lineage: `step_id`, `trajectory_uid`)',
  sft: 'chat conversations (`messages`, `tools` as JSON text) for supervised fine-tuning — TRL’s conversational format',
  rl_steps: 'one row per step for step-level RL: prompt, response, reward, group and position, token ids when known',
  verl_prompts: 'veRL prompt rows: `prompt`, `reward_model.ground_truth`, `extra_info`',
  dpo: 'preference pairs (`prompt`, `chosen`, `rejected`) from rollouts of one prompt with different rewards',
};

const n = (x: number) => x.toLocaleString('en');
const fence = (lang: string, text: string) => {
  const ticks = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}${lang}\n${text.replace(/\n+$/, '')}\n${ticks}`;
};
/** Text from the pool (ids, reasons, formats) inside a Markdown table cell. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');

export function cardMetadata(c: CardInput): Record<string, unknown> {
  const rows = c.configs[0]?.splits.reduce((a, s) => a + s.rows, 0) ?? 0;
  return {
    pretty_name: c.title,
    license: c.license,
    tags: c.tags,
    task_categories: ['text-generation'],
    size_categories: [sizeCategory(rows)],
    configs: c.configs.map((cfg, i) => ({
      config_name: cfg.name,
      data_files: cfg.splits.map((s) => ({ split: s.split, path: s.path })),
      ...(i === 0 ? { default: true } : {}),
    })),
    // the workbench's own facts, under a key of its own (the Hub keeps metadata it does not know)
    agentworld: {
      source_formats: Object.fromEntries(c.sourceFormats.map((f) => [f.format, { steps: f.steps, trajectories: f.trajectories }])),
      created_at: c.createdAt,
    },
  };
}

export function datasetCard(c: CardInput): string {
  const yamlText = stringify(cardMetadata(c), { lineWidth: 0 });
  const out: string[] = [`---\n${yamlText}---`, '', `# ${c.title}`, ''];
  out.push(
    `Training data for LLM agents curated with AgentWorld Workbench from ${n(c.sourceFormats.reduce((a, f) => a + f.trajectories, 0))} trajectories (${n(c.sourceFormats.reduce((a, f) => a + f.steps, 0))} LLM calls). Every row keeps \`trajectory_uid\` (and \`step_id\` where it is one step) for lineage.`,
    '',
    '## Configurations',
    '',
    '| config | what | split | rows | files |',
    '|---|---|---|---|---|',
  );
  for (const cfg of c.configs) {
    for (const s of cfg.splits) out.push(`| \`${cfg.name}\` | ${LAYOUT_SAYS[cfg.name] ?? ''} | \`${s.split}\`${s.from !== s.split ? ` (${cell(s.from)})` : ''} | ${n(s.rows)} | ${s.files} |`);
  }
  out.push('', '```python', 'from datasets import load_dataset', '');
  for (const cfg of c.configs) out.push(`${cfg.name} = load_dataset("<owner>/<this-dataset>", "${cfg.name}")`);
  out.push('```', '');
  if (c.sessions) {
    out.push(
      '## Sessions',
      '',
      `\`${c.sessions.path}\` holds the curated trajectories as ${n(c.sessions.files)} session files in the Hub's Session Trace Simple Format (one JSONL file per trajectory: a header line, then its messages; harness \`${c.sessions.harness}\`), which the Hub's trace viewer renders.`,
      '',
    );
  }
  out.push('## How it was made', '');
  const sel = c.selection;
  out.push(
    `- Steps matched by the selection${sel.where ? ` (\`${cell(sel.where)}\`)` : ''}: ${n(sel.stepsMatched)}.`,
    sel.trainableOnly
      ? `- Only trainable steps were exported: ${n(sel.notTrainable)} step(s) were not (failed calls, or labelled not trainable; ${n(sel.markedBad)} marked \`bad\` in review).`
      : '- Untrainable steps were kept.',
    `- Splits come from the curation's \`${sel.splitColumn}\` (the workbench's \`split_of\` helper, deterministic by trajectory), the source's channel where none was set.`,
    '',
  );
  if (c.recipe?.trim()) out.push('### Curation recipe', '', 'The SQL the curation ran (DuckDB):', '', fence('sql', c.recipe), '');
  out.push('### What was left out and why', '');
  const left = c.configs.flatMap((cfg) => cfg.leftOut.map((l) => ({ ...l, layout: cfg.name })));
  if (!sel.validOnly) out.push('Conversations a trainer would reject were kept, with a `problem` column.', '');
  else if (!left.length) out.push('Every selected conversation passed the checks (no empty prompt, no missing user turn, every tool call answered).', '');
  else {
    out.push('Conversations a trainer or chat template would reject, left out of each configuration:', '', '| config | reason | rows |', '|---|---|---|');
    for (const l of left) out.push(`| \`${l.layout}\` | ${cell(l.reason)} | ${n(l.n)} |`);
    out.push('');
  }
  if (c.redaction) {
    const kinds = Object.entries(c.redaction.kinds).filter(([, k]) => k > 0);
    out.push(
      '### Redaction',
      '',
      `E-mail addresses, phone numbers and key-shaped strings were replaced by \`[email]\`, \`[phone]\`, \`[secret]\` in messages, responses, errors and raw records: ${n(c.redaction.steps)} step(s) held some${kinds.length ? ` (${kinds.map(([k, v]) => `${k}: ${n(v)}`).join(', ')})` : ''}.`,
      '',
    );
  }
  if (c.tokens) {
    const t = c.tokens;
    out.push('### Tokens', '', `Under the \`${cell(t.tokenizer)}\` tokenizer and its chat template, the ${n(t.steps)} counted steps hold ${n(t.total)} tokens (median ${n(t.median)}, p95 ${n(t.p95)}, max ${n(t.max)} per step).`, '');
  }
  out.push('## Sources', '', '| source format | trajectories | steps |', '|---|---|---|');
  for (const f of c.sourceFormats) out.push(`| ${cell(f.format)} | ${n(f.trajectories)} | ${n(f.steps)} |`);
  out.push('', `Made ${c.createdAt.slice(0, 10)} with AgentWorld Workbench.`, '');
  return out.join('\n');
}
