/**
 * "Run headless": the `npx agentworld …` commands that run a notebook built on a sample over a whole corpus
 * (issue 22; README "CLI"): import the folder, run the notebook's cells (its effect cells too when it has
 * any, as the user ran them in the page), export with the export form's current settings — written as flags by
 * the same table the CLI parses them with (src/export/export-flags.ts).
 */
import type { DatasetLayout } from '../../contract/reports';
import { type ExportFlagOptions, exportArgs, type HeadlessExportOptions } from '../../export/export-flags';
import { buildGraph } from '../../notebook/graph';
import type { NotebookDoc } from '../../notebook/model';
import { schemaName } from '../../notebook/runtime';
import { inView } from '../../pool/queries/steps';

export interface HeadlessOptions {
  /** The name the notebook is saved under next to the commands. */
  notebookFile: string;
  /** The export form's options (its source already a `where`); absent: every layout with the defaults. */
  export?: HeadlessExportOptions | null;
  /** The form's source was a notebook cell's view: its name as typed, and the page schema of the open notebook. */
  view?: { name: string; pageSchema: string } | null;
  /** With tokens: the CLI's `--tokenizer` (qwen3 = the bundled profile), or null for a custom profile (a folder to give). */
  tokenizer?: string | null;
  /** The export form's part files: a folder per value of these columns, parts of at most this many MB (0: the CLI's 512MB). */
  partitionBy?: readonly string[];
  maxFileMb?: number;
}

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./,=:@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The notebook views' schema of `agentworld run <file>` (its runtime is named after the file). */
export function cliSchema(notebookFile: string): string {
  return schemaName(notebookFile.replace(/^.*\//, '').replace(/\.md$/i, ''));
}

export function headlessCommands(doc: NotebookDoc, opts: HeadlessOptions): string {
  const g = buildGraph(doc.cells);
  const effects = g.order.some((k) => {
    const c = doc.cells.find((x) => x.key === k);
    return !!c && c.kind === 'sql' && !!c.options.effect && !!c.source.trim();
  });
  const layouts: DatasetLayout[] = opts.export ? [opts.export.layout] : ['sft', 'rl_steps', 'verl_prompts', 'dpo'];
  const { layout: _layout, ...options }: Partial<HeadlessExportOptions> = opts.export ?? {};
  const o: ExportFlagOptions = { ...options };
  const notes: string[] = [];
  if (opts.view && o.where) {
    // the page's view lives in the open notebook's schema; headless, `run` creates it in the schema named after the file
    const name = opts.view.name.trim();
    const cell = name.startsWith(`${opts.view.pageSchema}.`) ? name.slice(opts.view.pageSchema.length + 1) : name;
    if (!cell.includes('.')) o.where = o.where.replace(inView(name), inView(`${cliSchema(opts.notebookFile)}.${cell}`));
  }
  const args = exportArgs(layouts, o).map(shellQuote);
  if (o.tokens) {
    if (opts.tokenizer) args.push('--tokenizer', shellQuote(opts.tokenizer));
    else {
      args.push('--tokenizer', 'TOKENIZER_DIR');
      notes.push('# TOKENIZER_DIR: a folder with the tokenizer.json and tokenizer_config.json of the active tokenizer profile');
    }
  }
  if (opts.partitionBy?.length) args.push('--partition-by', opts.partitionBy.join(','));
  return [
    '# in a checkout of AgentWorld Workbench; DATA is the folder with the whole corpus',
    ...notes,
    'npx agentworld import DATA --pool pool.duckdb',
    `npx agentworld run ${shellQuote(opts.notebookFile)} --pool pool.duckdb${effects ? ' --allow-effects' : ''}`,
    `npx agentworld export --pool pool.duckdb ${args.join(' ')} --out out/ --max-file-size ${opts.maxFileMb && opts.maxFileMb > 0 ? opts.maxFileMb : 512}MB`,
  ].join('\n');
}
