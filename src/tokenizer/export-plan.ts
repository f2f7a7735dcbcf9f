/**
 * The plan of an export with tokens (decisions 026, 032), written once for the page and the CLI (decision 076): which
 * options hold, which tokenizer may write ids, the first pass over the rows as written (which are left out or cut:
 * planRow), the tool warning, and the report the manifest and `onTokens` carry. What differs by engine is only how the
 * second pass's columns reach the file: the page's export worker fills each chunk from the tokenizer worker, the CLI
 * joins a file of ids to the rows (src/cli/tokens.ts).
 */
import type { TokenExportReport } from '../contract/reports';
import type { PoolPort, Row } from '../pool/port';
import { type ExportRowInput, type ExportTokenOptions, newPlanTally, type PlanTally, planRow, type RlExportCounts, tallyRow } from './export-rows';
import { type ProfileInfo, profileInfo, type TokenizerProfile } from './profile';

export const NO_MASKS_WARNING = 'assistant_masks could not be derived for this tokenizer / template: they are all 0.';

/** What an export with tokens was asked, checked. */
export interface TokenSettings {
  layout: 'sft' | 'rl_steps';
  /** sft: rows rendering to more tokens are left out (or cut, with truncate 'turn'). */
  maxTokens: number | null;
  truncate: 'drop' | 'turn';
}

/** The options of an export with tokens, checked: the layouts that take tokens, a positive maxTokens, no cut of rl_steps or of a per-step sft row. */
export function tokenSettings(opts: { layout: string; maxTokens?: number | null; truncate?: string; sftPer?: string }): TokenSettings {
  if (opts.layout !== 'sft' && opts.layout !== 'rl_steps') throw new Error(`tokens: true is for the sft and rl_steps layouts (got ${JSON.stringify(opts.layout)}).`);
  if (opts.layout === 'rl_steps') {
    if (opts.maxTokens != null || (opts.truncate && opts.truncate !== 'drop')) throw new Error('maxTokens / truncate are for the sft layout: rl_steps keeps every step (its ids are what the sampler saw).');
    return { layout: 'rl_steps', maxTokens: null, truncate: 'drop' };
  }
  const maxTokens = opts.maxTokens == null ? null : Math.floor(Number(opts.maxTokens));
  if (maxTokens !== null && !(maxTokens > 0)) throw new Error(`maxTokens must be a positive number (got ${JSON.stringify(opts.maxTokens)}).`);
  // a per-step row is a prompt and its completion: cutting it would cut the completion, so over-long ones are left out
  return { layout: 'sft', maxTokens, truncate: opts.truncate === 'turn' && opts.sftPer !== 'step' ? 'turn' : 'drop' };
}

/** The tokenizer an export with tokens renders with: set, and with a chat template (a counting-only profile writes no ids). */
export function exportProfile<T extends ProfileInfo>(p: T | null | undefined): T {
  if (!p) throw new Error('No tokenizer is set: call workbench.setTokenizer(…) first (exportDataset with tokens: true renders rows with it).');
  if (p.countingOnly) throw new Error(`${p.name} has no chat template: it counts tokens only, so it cannot write input_ids a trainer would compute. Choose a model's tokenizer for an export with tokens.`);
  return p;
}

/** What the first pass decided (the SQL of the rows to write is made from its exceptions: layouts.ts tokenizedSql). */
export interface ExportPlan extends PlanTally {
  profile: ProfileInfo;
  /** Rows not written whole: [row id, messages kept] (0 = left out). */
  exceptions: [string, number][];
}

/** The rows the first pass renders: the layout's rows as written, named by their id. */
export const planSql = (sql: string, idSql: string) => `SELECT (${idSql})::VARCHAR AS _id, messages, tools FROM (${sql})`;

/** The first pass over `chunks` of planSql's rows: every row rendered as written, kept whole, cut or left out. */
export async function planTokenExport(
  p: TokenizerProfile,
  chunks: AsyncIterable<readonly Row[]>,
  opts: ExportTokenOptions,
  cache: Map<string, number[]>,
  cancelled: () => boolean = () => false,
): Promise<ExportPlan> {
  const plan: ExportPlan = { profile: profileInfo(p), exceptions: [], ...newPlanTally() };
  for await (const rows of chunks) {
    if (cancelled()) throw new Error('The export was cancelled.');
    for (const r of rows) {
      const row = r as unknown as ExportRowInput & { _id: string };
      tallyRow(plan, plan.exceptions, row._id, planRow(p, row, opts, cache));
    }
  }
  return plan;
}

/** The warning for a template that does not render tools, when rows of `sql` (columns messages, tools) have tools or tool calls. */
export async function toolWarnings(pool: Pick<PoolPort, 'rows'>, info: ProfileInfo | null, sql = 'SELECT messages, tools FROM steps'): Promise<string[]> {
  if (!info || info.toolSupport) return [];
  const [r] = await pool.rows(`SELECT count(*)::INTEGER AS n FROM (${sql})
      WHERE (tools IS NOT NULL AND trim(tools) NOT IN ('', '[]')) OR coalesce(list_bool_or(list_transform(messages, m -> coalesce(len(m.tool_calls), 0) > 0)), false)`);
  const n = Number(r?.n ?? 0);
  return n ? [`The chat template of ${info.name} does not render tools, and ${n.toLocaleString('en-US')} conversation(s) have tool definitions or tool calls: the trainer will not see them.`] : [];
}

/** The rows whose tools an rl_steps export renders (its prompt is the messages). */
export const rlToolsSql = (sql: string) => `SELECT prompt AS messages, tools FROM (${sql})`;

/** The report of an sft export with tokens, from its plan. */
export function sftTokenReport(plan: ExportPlan, s: TokenSettings, warnings: readonly string[]): TokenExportReport {
  const { profile, exceptions: _, ...counts } = plan;
  return {
    tokenizer: profile.name, vocab_size: profile.vocabSize, template_hash: profile.templateHash, max_tokens: s.maxTokens, truncate: s.truncate, ...counts,
    warnings: [...warnings, ...(!plan.mask_source && plan.rows ? [NO_MASKS_WARNING] : [])],
  };
}

/** The report of an rl_steps export with tokens, from what its second pass counted. */
export function rlTokenReport(profile: ProfileInfo, s: RlExportCounts, warnings: readonly string[]): TokenExportReport {
  return {
    tokenizer: profile.name, vocab_size: profile.vocabSize, template_hash: profile.templateHash, mask_source: null, max_tokens: null, truncate: 'drop',
    rows_in: s.rows, rows: s.rows, truncated: 0, excluded: {}, lost: { reasoning: 0, tool_calls: 0, tool_results: 0, content: 0 },
    tokens: s.tokens, trained_tokens: 0, warnings: [...warnings], retokenized: s.retokenized, sampler_ids: s.samplerIds, not_retokenized: s.notRetokenized,
  };
}

/** The reports of several parts of one export (a part-file export's partitions) as one: counts summed, warnings once. */
export function mergeTokenReports(reports: readonly TokenExportReport[]): TokenExportReport | null {
  const [first, ...rest] = reports;
  if (!first) return null;
  const sum = (a: Record<string, number> = {}, b: Record<string, number> = {}) => {
    const out = { ...a };
    for (const [k, n] of Object.entries(b)) out[k] = (out[k] ?? 0) + n;
    return out;
  };
  const m: TokenExportReport = { ...first, excluded: { ...first.excluded }, lost: { ...first.lost }, warnings: [...first.warnings] };
  for (const r of rest) {
    m.mask_source ??= r.mask_source;
    m.rows_in += r.rows_in;
    m.rows += r.rows;
    m.truncated += r.truncated;
    m.excluded = sum(m.excluded, r.excluded);
    m.lost = { reasoning: m.lost.reasoning + r.lost.reasoning, tool_calls: m.lost.tool_calls + r.lost.tool_calls, tool_results: m.lost.tool_results + r.lost.tool_results, content: m.lost.content + r.lost.content };
    m.tokens += r.tokens;
    m.trained_tokens += r.trained_tokens;
    for (const w of r.warnings) if (!m.warnings.includes(w)) m.warnings.push(w);
    if (m.retokenized !== undefined || r.retokenized !== undefined) {
      m.retokenized = (m.retokenized ?? 0) + (r.retokenized ?? 0);
      m.sampler_ids = (m.sampler_ids ?? 0) + (r.sampler_ids ?? 0);
      m.not_retokenized = sum(m.not_retokenized, r.not_retokenized);
    }
  }
  return m;
}
