/**
 * "Run headless": the `npx agentworld …` commands that run a notebook built on a sample over a whole corpus
 * (issue 22; README "CLI"): import the folder, run the notebook's cells (its effect cells too when it has
 * any, as the user ran them in the page), export the layouts.
 */
import { buildGraph } from './graph';
import type { NotebookDoc } from './model';

export interface HeadlessOptions {
  /** The name the notebook is saved under next to the commands. */
  notebookFile: string;
  layouts?: readonly string[];
  /** SQL predicate over `steps s` / `curation c` (the export panel's filter). */
  where?: string;
  trainableOnly?: boolean;
  partitionBy?: readonly string[];
}

/** POSIX shell single-quoting. */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./,=:@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

export function headlessCommands(doc: NotebookDoc, opts: HeadlessOptions): string {
  const g = buildGraph(doc.cells);
  const effects = g.order.some((k) => {
    const c = doc.cells.find((x) => x.key === k);
    return !!c && c.kind === 'sql' && !!c.options.effect && !!c.source.trim();
  });
  const layouts = opts.layouts?.length ? opts.layouts : ['sft', 'rl_steps', 'verl_prompts', 'dpo'];
  const exportArgs = ['--layout', layouts.join(',')];
  if (opts.where?.trim()) exportArgs.push('--where', shellQuote(opts.where.trim()));
  if (opts.trainableOnly === false) exportArgs.push('--include-untrainable');
  if (opts.partitionBy?.length) exportArgs.push('--partition-by', opts.partitionBy.join(','));
  return [
    '# in a checkout of AgentWorld Workbench; DATA is the folder with the whole corpus',
    'npx agentworld import DATA --pool pool.duckdb',
    `npx agentworld run ${shellQuote(opts.notebookFile)} --pool pool.duckdb${effects ? ' --allow-effects' : ''}`,
    `npx agentworld export --pool pool.duckdb ${exportArgs.join(' ')} --out out/ --max-file-size 512MB`,
  ].join('\n');
}
