/**
 * Per-column summaries of a cell's result, like the Hugging Face dataset viewer: type, nulls,
 * distinct values, a mini histogram (numbers, dates, timestamps) or the top values (text,
 * booleans). Computed by SQL in the pool's worker (never on the main thread), read-only: SUMMARIZE, then one query
 * with every column's bins or top values, and, for results of up to EXACT_DISTINCT_ROWS rows, one with every column's
 * exact distinct count (SUMMARIZE's approx_unique is a HyperLogLog estimate: it said 101 distinct of 100 rows).
 */
import type { Table } from 'apache-arrow';
import { tableToRows } from '../pool/rows';
import { sqlIdent } from '../pool/sql';

export type SummaryKind = 'number' | 'time' | 'text' | 'other';

export interface ColumnSummary {
  name: string;
  type: string;
  kind: SummaryKind;
  count: number;
  nullPct: number;
  distinct: number;
  /** `distinct` was counted exactly (else it is SUMMARIZE's estimate, shown with ≈). */
  distinctExact: boolean;
  min: string | null;
  max: string | null;
  /** number / time: equal-width bins over [lo, hi] (epoch seconds for time). */
  bins?: { lo: number; hi: number; counts: number[] };
  /** text: the most frequent values. */
  top?: { value: string; n: number }[];
}

export const SUMMARY_BINS = 12;
export const SUMMARY_TOP = 3;
/** Columns past this many get no summary (one branch each in the second query). */
export const SUMMARY_MAX_COLUMNS = 40;
/** Results up to this many rows get exact distinct counts (one count(DISTINCT) per column: ~0.1 s at this size here). */
export const EXACT_DISTINCT_ROWS = 200_000;

export interface SummaryPool {
  queryReadOnly(sql: string, run?: boolean): Promise<Table | null>;
}

export function kindOfType(type: string): SummaryKind {
  const t = type.toUpperCase();
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|REAL|DECIMAL(\(\d+,\s*\d+\))?)$/.test(t)) return 'number';
  if (/^(DATE|TIMESTAMP|TIMESTAMP_S|TIMESTAMP_MS|TIMESTAMP_NS)$/.test(t)) return 'time';
  if (/^(VARCHAR|BOOLEAN|UUID|ENUM\(.*\))$/.test(t)) return 'text';
  return 'other';
}

/** SUMMARIZE over a relation (a view name or a parenthesized SELECT). */
export function summarizeSql(relation: string): string {
  return `SELECT * FROM (SUMMARIZE SELECT * FROM ${relation})`;
}

/** One query: the bins of every number / time column and the top values of every text column. */
export function distributionSql(relation: string, cols: { name: string; kind: SummaryKind }[], bins = SUMMARY_BINS, top = SUMMARY_TOP): string | null {
  const branches: string[] = [];
  cols.forEach((c, i) => {
    const q = sqlIdent(c.name);
    if (c.kind === 'number' || c.kind === 'time') {
      const x = c.kind === 'time' ? `epoch(CAST(${q} AS TIMESTAMP))` : `CAST(${q} AS DOUBLE)`;
      branches.push(`(SELECT ${i} AS col, coalesce(least(CAST(floor((x - lo) / nullif(hi - lo, 0) * ${bins}) AS INTEGER), ${bins - 1}), 0) AS b, NULL::VARCHAR AS v, count(*)::BIGINT AS n, any_value(lo) AS lo, any_value(hi) AS hi
  FROM (SELECT ${x} AS x FROM src WHERE ${q} IS NOT NULL) , (SELECT min(${x}) AS lo, max(${x}) AS hi FROM src) GROUP BY b)`);
    } else if (c.kind === 'text') {
      branches.push(`(SELECT ${i} AS col, NULL::INTEGER AS b, CAST(${q} AS VARCHAR) AS v, count(*)::BIGINT AS n, NULL::DOUBLE AS lo, NULL::DOUBLE AS hi
  FROM src WHERE ${q} IS NOT NULL GROUP BY v ORDER BY n DESC, v LIMIT ${top})`);
    }
  });
  if (!branches.length) return null;
  return `WITH src AS MATERIALIZED (SELECT * FROM ${relation})\n${branches.join('\nUNION ALL\n')}`;
}

/** One query: the exact distinct count of every column (`d0`, `d1`, … in the columns' order). */
export function exactDistinctSql(relation: string, cols: { name: string }[]): string {
  return `SELECT ${cols.map((c, i) => `count(DISTINCT ${sqlIdent(c.name)})::BIGINT AS d${i}`).join(', ')} FROM ${relation}`;
}

const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : Number(v ?? 0));

export async function summarizeColumns(pool: SummaryPool, relation: string): Promise<ColumnSummary[]> {
  const t = await pool.queryReadOnly(summarizeSql(relation));
  const out: ColumnSummary[] = (t ? tableToRows(t) : []).slice(0, SUMMARY_MAX_COLUMNS).map((r) => ({
    name: String(r.column_name),
    type: String(r.column_type),
    kind: kindOfType(String(r.column_type)),
    count: num(r.count),
    nullPct: num(r.null_percentage),
    // an estimate never above the non-null values there are
    distinct: Math.min(num(r.approx_unique), Math.round(num(r.count) * (1 - num(r.null_percentage) / 100))),
    distinctExact: false,
    min: r.min == null ? null : String(r.min),
    max: r.max == null ? null : String(r.max),
  }));
  if (out.length && out[0].count <= EXACT_DISTINCT_ROWS) {
    try {
      const d = await pool.queryReadOnly(exactDistinctSql(relation, out));
      const r = d ? tableToRows(d)[0] : undefined;
      if (r)
        out.forEach((c, i) => {
          c.distinct = num(r[`d${i}`]);
          c.distinctExact = true;
        });
    } catch {
      /* a column type without DISTINCT: the estimates stay, marked ≈ */
    }
  }
  const sql = distributionSql(relation, out);
  if (!sql) return out;
  const d = await pool.queryReadOnly(sql);
  for (const r of d ? tableToRows(d) : []) {
    const c = out[num(r.col)];
    if (!c) continue;
    if (r.v !== null && r.v !== undefined) {
      c.top ??= [];
      c.top.push({ value: String(r.v), n: num(r.n) });
    } else {
      c.bins ??= { lo: num(r.lo), hi: num(r.hi), counts: new Array(SUMMARY_BINS).fill(0) };
      c.bins.counts[num(r.b)] += num(r.n);
    }
  }
  for (const c of out) c.top?.sort((a, b) => b.n - a.n || a.value.localeCompare(b.value));
  return out;
}
