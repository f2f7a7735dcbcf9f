/** The manifest downloaded beside every dataset export: what was exported, from what, when. */
import type { DatasetLayout, ExportDatasetOptions, ExportFormat, TokenExportReport } from '../../contract/reports';

export interface ExportManifest {
  generator: 'AgentWorld Workbench';
  created_at: string;
  file: string;
  layout: DatasetLayout;
  format: ExportFormat;
  /** Rows in the file. */
  rows: number;
  /** Steps and trajectories the layout was built from (after trainable / filter / split). */
  steps: number;
  trajectories: number;
  source: { kind: 'pool' | 'filter' | 'view' | 'sql'; view?: string; filter?: Record<string, unknown>; where: string | null };
  /** Rows (dpo: trajectories) left out because a trainer would reject their conversation, by reason (decision 012). */
  excluded?: Record<string, number>;
  /** With valid_only off: the rows exported with a `problem`, by reason. */
  flagged?: Record<string, number>;
  /** sft with tokens: the tokenizer and template, and the rows it left out (by cause), cut or found lossy (decision 026). */
  tokens?: TokenExportReport;
  options: { trainable_only: boolean; valid_only: boolean; redact: boolean; split: string | null; split_column: string; sft_per?: string; dpo_min_margin?: number };
  sql: string;
}

export { fileStem } from '../../export/parts';

/** What the form knew when it exported: the options it asked for and what the preview counted. */
export interface ManifestInput {
  file: string;
  layout: DatasetLayout;
  format: ExportFormat;
  source: ExportManifest['source'];
  options: Omit<ExportDatasetOptions, 'format'>;
  rows: number;
  counts: { steps: number; trajectories: number } | null;
  problems: { problem: string; n: number }[];
  tokens?: TokenExportReport;
  sql: string;
}

export function buildManifest(m: ManifestInput, when = new Date()): ExportManifest {
  const o = m.options;
  const excluded = Object.fromEntries(m.problems.map((p) => [p.problem, p.n]));
  const validOnly = o.validOnly !== false;
  return {
    generator: 'AgentWorld Workbench', created_at: when.toISOString(), file: m.file, layout: m.layout, format: m.format,
    rows: m.tokens ? m.tokens.rows : m.rows, steps: m.counts?.steps ?? 0, trajectories: m.counts?.trajectories ?? 0,
    source: m.source,
    options: {
      trainable_only: o.trainableOnly !== false, valid_only: validOnly, redact: !!o.redact, split: o.split ?? null, split_column: o.splitColumn ?? 'split',
      ...(o.sftPer ? { sft_per: o.sftPer } : {}), ...(o.dpoMinMargin ? { dpo_min_margin: o.dpoMinMargin } : {}),
    },
    ...(validOnly ? { excluded } : { flagged: excluded }),
    ...(m.tokens ? { tokens: m.tokens } : {}),
    sql: m.sql,
  };
}
