/**
 * The page's export options ↔ `agentworld export` flags, from ONE table (issue 22). The CLI's flag parser
 * (src/cli/main.ts) takes its parseArgs options and its parsing from `EXPORT_OPTION_FLAGS`; "Run headless"
 * (src/views/notebook/headless.ts) writes the flags for the export form's options from the same table. A field added to
 * ExportDatasetOptions without a row here fails the typecheck (`satisfies Record<keyof …>`), and
 * test/unit/cli-export-options.test.ts round-trips every row (options → flags → CLI parse → the same options).
 */
import type { DatasetLayout, ExportDatasetOptions } from '../contract/reports';
import { LAYOUTS } from './layouts';

/** The fields of the page's export options that a command line can carry (not the callbacks nor the file format). */
export type HeadlessExportOptions = Omit<ExportDatasetOptions, 'format' | 'onTokens' | 'onProgress' | 'signal'>;
export type ExportFlagOptions = Omit<HeadlessExportOptions, 'layout'>;

/** A bad flag value (exit code 2 in the CLI). */
export class ExportFlagError extends Error {}

/**
 * How one option is spelled on the command line:
 * - `text`: `--flag VALUE` (empty / null = absent);
 * - `on`: `--flag` sets the option true (default false);
 * - `off`: `--flag` sets the option false (default true);
 * - `choice`: `--flag VALUE`, VALUE one of `values`;
 * - `number`: `--flag N`, N passing `ok`.
 */
export type FlagSpec =
  | { flag: string; kind: 'text' }
  | { flag: string; kind: 'on' }
  | { flag: string; kind: 'off' }
  | { flag: string; kind: 'choice'; values: readonly string[] }
  | { flag: string; kind: 'number'; ok: (n: number) => boolean; what: string };

export const EXPORT_OPTION_FLAGS = {
  where: { flag: 'where', kind: 'text' },
  trainableOnly: { flag: 'include-untrainable', kind: 'off' },
  validOnly: { flag: 'keep-invalid', kind: 'off' },
  sftPer: { flag: 'sft-per', kind: 'choice', values: ['trajectory', 'step'] },
  dpoMinMargin: { flag: 'dpo-min-margin', kind: 'number', ok: (n) => n >= 0, what: 'a number ≥ 0' },
  redact: { flag: 'redact', kind: 'on' },
  split: { flag: 'split', kind: 'text' },
  splitColumn: { flag: 'split-column', kind: 'choice', values: ['split', 'channel'] },
  tokens: { flag: 'tokens', kind: 'on' },
  maxTokens: { flag: 'max-tokens', kind: 'number', ok: (n) => Number.isInteger(n) && n > 0, what: 'a whole number ≥ 1' },
  truncate: { flag: 'truncate', kind: 'choice', values: ['drop', 'turn'] },
} as const satisfies Record<keyof ExportFlagOptions, FlagSpec>;

type Key = keyof typeof EXPORT_OPTION_FLAGS;
const KEYS = Object.keys(EXPORT_OPTION_FLAGS) as Key[];
const spec = (k: Key): FlagSpec => EXPORT_OPTION_FLAGS[k];

/** The export flags as node:util parseArgs options (`--layout` and one per option). */
type ParseOption<S> = S extends { kind: 'on' | 'off' } ? { type: 'boolean'; default: false } : { type: 'string' };
type ExportFlagsType = { layout: { type: 'string' } } & {
  [K in Key as (typeof EXPORT_OPTION_FLAGS)[K]['flag']]: ParseOption<(typeof EXPORT_OPTION_FLAGS)[K]>;
};
export const EXPORT_FLAGS = {
  layout: { type: 'string' },
  ...Object.fromEntries(KEYS.map((k) => [spec(k).flag, spec(k).kind === 'on' || spec(k).kind === 'off' ? { type: 'boolean', default: false } : { type: 'string' }])),
} as ExportFlagsType;

/** Parsed flag values (parseArgs' `values`), by flag name. */
export type ExportFlagValues = { layout?: string } & Record<string, string | boolean | string[] | undefined>;

function parseOne(s: FlagSpec, v: string | boolean | undefined): unknown {
  if (v === undefined || v === false) return undefined;
  const name = `--${s.flag}`;
  switch (s.kind) {
    case 'on':
      return true;
    case 'off':
      return false;
    case 'text':
      return typeof v === 'string' && v.trim() ? v : undefined;
    case 'choice':
      if (!s.values.includes(String(v))) throw new ExportFlagError(`${name} takes ${s.values.join(' or ')} (got ${v})`);
      return String(v);
    case 'number': {
      const n = Number(v);
      if (typeof v !== 'string' || !v.trim() || !Number.isFinite(n) || !s.ok(n)) throw new ExportFlagError(`${name} takes ${s.what} (got ${v})`);
      return n;
    }
  }
}

/** `--layout a,b` and the other flags: one set of the page's export options per layout (options left at their defaults are absent). */
export function exportOptions(v: ExportFlagValues): HeadlessExportOptions[] {
  if (!v.layout) throw new ExportFlagError('--layout is required');
  const common: Record<string, unknown> = {};
  for (const k of KEYS) {
    const x = parseOne(spec(k), v[spec(k).flag] as string | boolean | undefined); // no export flag is repeatable
    if (x !== undefined) common[k] = x;
  }
  const o = common as ExportFlagOptions;
  if ((o.maxTokens !== undefined || o.truncate) && !o.tokens) throw new ExportFlagError('--max-tokens and --truncate go with --tokens');
  return v.layout.split(',').map((name) => {
    const layout = name.trim() as DatasetLayout;
    if (!(layout in LAYOUTS)) throw new ExportFlagError(`unknown layout ${layout} (one of ${Object.keys(LAYOUTS).join(', ')})`);
    return { layout, ...o };
  });
}

/** The export flags that give back `opts` (for the layouts named), as argv words (unquoted). Defaults write no flag. */
export function exportArgs(layouts: readonly DatasetLayout[], opts: ExportFlagOptions): string[] {
  const out = ['--layout', layouts.join(',')];
  const o = opts as Record<string, unknown>;
  for (const k of KEYS) {
    const s = spec(k);
    const v = o[k];
    if (v === undefined || v === null) continue;
    if (s.kind === 'on' && v === true) out.push(`--${s.flag}`);
    else if (s.kind === 'off' && v === false) out.push(`--${s.flag}`);
    else if (s.kind === 'text' && String(v).trim()) out.push(`--${s.flag}`, String(v));
    else if (s.kind === 'choice' || s.kind === 'number') out.push(`--${s.flag}`, String(v));
  }
  return out;
}

/** `opts` without the options that are at their defaults (what a command line without their flags means). */
export function withoutDefaults(opts: ExportFlagOptions): ExportFlagOptions {
  const out: Record<string, unknown> = {};
  for (const k of KEYS) {
    const s = spec(k);
    const v = (opts as Record<string, unknown>)[k];
    if (v === undefined || v === null) continue;
    if ((s.kind === 'on' && v !== true) || (s.kind === 'off' && v !== false) || (s.kind === 'text' && !String(v).trim())) continue;
    out[k] = v;
  }
  return out as ExportFlagOptions;
}

/** What the export form's controls hold (src/views/export/aw-export-form.ts), the source already turned into `where`. */
export interface ExportFormState {
  layout: DatasetLayout;
  where: string;
  trainableOnly: boolean;
  validOnly: boolean;
  redact: boolean;
  split: string;
  splitColumn: 'split' | 'channel';
  sftPer: 'trajectory' | 'step';
  tokens: boolean;
  maxTokens: number;
  truncate: 'drop' | 'turn';
  dpoMinMargin: number;
}

/** The dataset options the export form's controls describe (the page exports with these; "Run headless" prints them as flags). */
export function formExportOptions(f: ExportFormState): HeadlessExportOptions {
  return {
    layout: f.layout,
    where: f.where || undefined,
    trainableOnly: f.trainableOnly,
    validOnly: f.validOnly,
    redact: f.redact,
    split: f.split || null,
    splitColumn: f.splitColumn,
    ...(f.layout === 'sft' ? { sftPer: f.sftPer } : {}),
    ...(f.layout === 'sft' && f.tokens ? { tokens: true, maxTokens: f.maxTokens, truncate: f.truncate } : {}),
    ...(f.layout === 'dpo' && f.dpoMinMargin > 0 ? { dpoMinMargin: f.dpoMinMargin } : {}),
  };
}
