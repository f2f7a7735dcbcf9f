/**
 * `agentworld export`'s options are the page's export options (ExportDatasetOptions, src/contract/reports.ts): one flag
 * per field, parsed into that very type and handed to the same layout SQL (src/export/layouts.ts). `exportArgs` is the
 * inverse — the flags for a set of options — so "run headless" commands carry the page's export settings exactly.
 */
import type { DatasetLayout, ExportDatasetOptions } from '../contract/reports';
import { LAYOUTS } from '../export/layouts';
import { UsageError } from './files';

/** The fields of the page's export options that a command line can carry (not the callbacks nor the file format). */
export type HeadlessExportOptions = Omit<ExportDatasetOptions, 'format' | 'onTokens' | 'onProgress' | 'signal'>;

/** parseArgs options of the export flags. */
export const EXPORT_FLAGS = {
  layout: { type: 'string' },
  where: { type: 'string' },
  'include-untrainable': { type: 'boolean', default: false },
  'keep-invalid': { type: 'boolean', default: false },
  'sft-per': { type: 'string' },
  'dpo-min-margin': { type: 'string' },
  redact: { type: 'boolean', default: false },
  split: { type: 'string' },
  'split-column': { type: 'string' },
  tokens: { type: 'boolean', default: false },
  'max-tokens': { type: 'string' },
  truncate: { type: 'string' },
} as const;

export interface ExportFlagValues {
  layout?: string;
  where?: string;
  'include-untrainable'?: boolean;
  'keep-invalid'?: boolean;
  'sft-per'?: string;
  'dpo-min-margin'?: string;
  redact?: boolean;
  split?: string;
  'split-column'?: string;
  tokens?: boolean;
  'max-tokens'?: string;
  truncate?: string;
}

function oneOf<T extends string>(flag: string, v: string | undefined, allowed: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw new UsageError(`${flag} takes ${allowed.join(' or ')} (got ${v})`);
  return v as T;
}

function number(flag: string, v: string | undefined, ok: (n: number) => boolean): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!v.trim() || !Number.isFinite(n) || !ok(n)) throw new UsageError(`${flag} takes a number (got ${v})`);
  return n;
}

/** `--layout a,b` and the other flags: one set of the page's export options per layout (fields left at their defaults are absent). */
export function exportOptions(v: ExportFlagValues): HeadlessExportOptions[] {
  if (!v.layout) throw new UsageError('--layout is required');
  const common: Omit<HeadlessExportOptions, 'layout'> = {};
  if (v.where?.trim()) common.where = v.where;
  if (v['include-untrainable']) common.trainableOnly = false;
  if (v['keep-invalid']) common.validOnly = false;
  const sftPer = oneOf('--sft-per', v['sft-per'], ['trajectory', 'step'] as const);
  if (sftPer) common.sftPer = sftPer;
  const margin = number('--dpo-min-margin', v['dpo-min-margin'], (n) => n >= 0);
  if (margin !== undefined) common.dpoMinMargin = margin;
  if (v.redact) common.redact = true;
  if (v.split) common.split = v.split;
  const splitColumn = oneOf('--split-column', v['split-column'], ['split', 'channel'] as const);
  if (splitColumn) common.splitColumn = splitColumn;
  if (v.tokens) common.tokens = true;
  const maxTokens = number('--max-tokens', v['max-tokens'], (n) => Number.isInteger(n) && n > 0);
  if (maxTokens !== undefined) common.maxTokens = maxTokens;
  const truncate = oneOf('--truncate', v.truncate, ['drop', 'turn'] as const);
  if (truncate) common.truncate = truncate;
  if ((common.maxTokens !== undefined || common.truncate) && !common.tokens) throw new UsageError('--max-tokens and --truncate go with --tokens');
  return v.layout.split(',').map((name) => {
    const layout = name.trim() as DatasetLayout;
    if (!(layout in LAYOUTS)) throw new UsageError(`unknown layout ${layout} (one of ${Object.keys(LAYOUTS).join(', ')})`);
    return { layout, ...common };
  });
}

/** The export flags that give back `opts` (for the layouts named), as argv words (unquoted). */
export function exportArgs(layouts: readonly DatasetLayout[], opts: Omit<HeadlessExportOptions, 'layout'>): string[] {
  const out = ['--layout', layouts.join(',')];
  if (opts.where?.trim()) out.push('--where', opts.where);
  if (opts.trainableOnly === false) out.push('--include-untrainable');
  if (opts.validOnly === false) out.push('--keep-invalid');
  if (opts.sftPer) out.push('--sft-per', opts.sftPer);
  if (opts.dpoMinMargin != null) out.push('--dpo-min-margin', String(opts.dpoMinMargin));
  if (opts.redact) out.push('--redact');
  if (opts.split) out.push('--split', opts.split);
  if (opts.splitColumn) out.push('--split-column', opts.splitColumn);
  if (opts.tokens) out.push('--tokens');
  if (opts.maxTokens != null) out.push('--max-tokens', String(opts.maxTokens));
  if (opts.truncate) out.push('--truncate', opts.truncate);
  return out;
}
