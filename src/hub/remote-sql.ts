/**
 * `read_parquet('<https or hf:// URL>')` in a query: where the calls are, which of the file's columns the query can
 * touch, which rows it needs, and the query with each call replaced by a table of what was read (decision 071).
 * DuckDB-WASM 1.32 has no Parquet reader offline, so the workbench reads the file itself (parquet-range.ts).
 *
 * The columns are a superset found from tokens (the notebook's SQL tokenizer): every identifier of the query that names
 * a column of the file, or every column when the query could reach columns it does not name (`*`, `COLUMNS(…)`, the
 * relation used as a row, NATURAL joins, PIVOT, a FROM without SELECT). A superset gives the same answer as the whole
 * file; it only costs bytes. Row groups: all of them, except for the shape `SELECT <plain columns> FROM read_parquet(…)
 * [alias] LIMIT n [OFFSET m]`, which reads the file's first n + m rows and nothing else.
 */
import { identName, type Token, tokenize } from '../notebook/sql-tokens';

export class RemoteSqlError extends Error {
  override name = 'RemoteSqlError';
}

export interface RemoteCall {
  /** The URL as written. */
  url: string;
  /** `read_parquet` or `parquet_scan`, as written. */
  fn: string;
  /** Span of the call (`read_parquet ( '…' )`) in the SQL. */
  start: number;
  end: number;
  /** The alias after the call, if any. */
  alias: string | null;
  /** Rows from the file's start that are all the query reads of it (see the header), or null: every row. */
  rowsNeeded: number | null;
}

const FUNCTIONS = new Set(['read_parquet', 'parquet_scan']);
/** Words that end a FROM item: never an alias. */
const NOT_ALIAS = new Set([
  'where', 'limit', 'offset', 'join', 'inner', 'left', 'right', 'full', 'outer', 'cross', 'natural', 'positional', 'asof', 'semi', 'anti',
  'lateral', 'on', 'using', 'group', 'order', 'having', 'union', 'except', 'intersect', 'window', 'qualify', 'select', 'sample',
  'tablesample', 'using', 'fetch', 'pivot', 'unpivot', 'returning', 'by', 'all', 'distinct',
]);
/** Words after which the query may use columns it does not name. */
const ALL_COLUMNS = new Set(['natural', 'pivot', 'unpivot', 'pivot_wider', 'pivot_longer', 'summarize', 'describe', 'columns']);

export function isRemoteUrl(s: string): boolean {
  return /^(https?|hf):\/\//i.test(s.trim());
}

function significant(sql: string): Token[] {
  return tokenize(sql).filter((t) => t.type !== 'ws' && t.type !== 'comment');
}

function stringValue(t: Token): string | null {
  if (t.type !== 'string' || !t.text.startsWith("'")) return null;
  return t.text.slice(1, -1).replaceAll("''", "'");
}

const isIdent = (t: Token | undefined): t is Token => !!t && (t.type === 'word' || t.type === 'qident');
const lower = (t: Token | undefined) => (t?.type === 'word' ? t.text.toLowerCase() : '');

/** Depth of every token (parentheses), and each token's enclosing `(` … `)` bounds. */
function depths(toks: Token[]): { depth: number[]; open: number[]; close: number[] } {
  const depth: number[] = [];
  const open: number[] = [];
  const stack: number[] = [];
  let d = 0;
  for (let k = 0; k < toks.length; k++) {
    if (toks[k].text === ')') {
      d = Math.max(0, d - 1);
      stack.pop();
    }
    depth.push(d);
    open.push(stack.length ? stack[stack.length - 1] : -1);
    if (toks[k].text === '(') {
      d++;
      stack.push(k);
    }
  }
  const close = open.map(() => toks.length);
  for (let k = 0; k < toks.length; k++) {
    if (toks[k].text !== '(') continue;
    let e = k + 1;
    while (e < toks.length && !(toks[e].text === ')' && depth[e] === depth[k])) e++;
    for (let j = k + 1; j < e; j++) if (open[j] === k) close[j] = e;
  }
  return { depth, open, close };
}

/**
 * The remote `read_parquet` calls of `sql`, in order. A call with a remote URL and anything more than that one string
 * (options, a list of files) is refused with a message: the workbench reads only `read_parquet('<url>')` itself.
 */
export function remoteCalls(sql: string): RemoteCall[] {
  const toks = significant(sql);
  const { depth, open, close } = depths(toks);
  const out: RemoteCall[] = [];
  for (let k = 0; k < toks.length; k++) {
    const fn = lower(toks[k]);
    if (!FUNCTIONS.has(fn) || toks[k + 1]?.text !== '(') continue;
    const arg = toks[k + 2];
    const url = arg ? stringValue(arg) : null;
    if (url === null || !isRemoteUrl(url)) {
      // a list holding a remote URL: say so rather than let DuckDB fail on a missing extension
      if (arg?.text === '[') {
        let e = k + 3;
        while (e < toks.length && toks[e].text !== ']') {
          const v = stringValue(toks[e]);
          if (v && isRemoteUrl(v)) throw new RemoteSqlError(`${toks[k].text}([…]) with remote files is not supported: read each with ${toks[k].text}('<url>') and combine them with UNION ALL BY NAME.`);
          e++;
        }
      }
      continue;
    }
    if (toks[k + 3]?.text !== ')' && toks[k + 3]?.text !== ',') {
      throw new RemoteSqlError(`${toks[k].text}('${url}' …): a remote file is read only when its URL is written whole, as one string: ${toks[k].text}('<url>'). A URL built by an expression is never fetched.`);
    }
    if (toks[k + 3]?.text !== ')') {
      throw new RemoteSqlError(`${toks[k].text}('${url}', …): options are not supported for a remote file (the workbench reads it by range itself); write ${toks[k].text}('${url}').`);
    }
    let p = k + 4;
    if (lower(toks[p]) === 'as') p++;
    const a = toks[p];
    const alias = isIdent(a) && !NOT_ALIAS.has(lower(a)) ? identName(a) : null;
    out.push({ url: url.trim(), fn: toks[k].text, start: toks[k].start, end: toks[k + 3].end, alias, rowsNeeded: rowsNeeded(toks, k, alias !== null ? p : k + 3, depth, open, close) });
  }
  return out;
}

/** `SELECT <plain columns> FROM <call> [alias] LIMIT n [OFFSET m]` as the whole (sub)query around the call: n + m. */
function rowsNeeded(toks: Token[], at: number, last: number, depth: number[], open: number[], close: number[]): number | null {
  const from = open[at] + 1;
  const to = close[at];
  const seg = toks.slice(from, to);
  const i = at - from;
  if (lower(seg[0]) !== 'select' || lower(seg[i - 1]) !== 'from') return null;
  for (let j = 1; j < i - 1; j++) {
    const t = seg[j];
    if (t.text === '(' || lower(t) === 'distinct' || lower(t) === 'from' || depth[from + j] !== depth[at]) return null;
  }
  const tail = seg.slice(last - from + 1);
  if (lower(tail[0]) !== 'limit' || tail[1]?.type !== 'number') return null;
  const n = Number(tail[1].text);
  let m = 0;
  let rest = tail.slice(2);
  if (lower(rest[0]) === 'offset') {
    if (rest[1]?.type !== 'number') return null;
    m = Number(rest[1].text);
    rest = rest.slice(2);
  }
  if (rest.length && !(rest.length === 1 && rest[0].text === ';')) return null;
  return Number.isInteger(n) && Number.isInteger(m) && n >= 0 && m >= 0 ? n + m : null;
}

/**
 * The columns of the file (`columns`, as the file names them) the query can touch, or null when it may touch any.
 * Several calls of one query share one answer (the same file read twice is one table).
 */
export function neededColumns(sql: string, calls: RemoteCall[], columns: string[]): string[] | null {
  const toks = significant(sql);
  const { open } = depths(toks);
  const callAt = new Set(calls.map((c) => c.start));
  const aliases = new Set(calls.map((c) => c.alias ?? c.fn.toLowerCase()));
  const byName = new Map(columns.map((c) => [c.toLowerCase(), c]));
  // the (sub)queries that read a call directly: a `*`, COLUMNS(…), NATURAL … there reaches the file's columns; one in an
  // outer query reaches only what the inner query selected
  const readers = new Set(toks.flatMap((t, k) => (callAt.has(t.start) ? [open[k]] : [])));
  if (!toks.some((t) => lower(t) === 'select')) return null;
  const used = new Set<string>();
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    const prev = toks[k - 1];
    const next = toks[k + 1];
    if (t.text === '*' && prev?.text !== '(') {
      if (prev?.text === '.') {
        if (aliases.has(identName(toks[k - 2]))) return null;
      } else if (readers.has(open[k])) return null;
    }
    if ((t.text === '#' || (t.type === 'word' && ALL_COLUMNS.has(lower(t)))) && readers.has(open[k])) return null;
    if (!isIdent(t) || callAt.has(t.start)) continue;
    const name = identName(t);
    // the relation used as a value (`SELECT t FROM read_parquet(…) t`): a struct of every column
    if (aliases.has(name) && next?.text !== '.' && next?.text !== '(' && !(prev && /^as$/i.test(prev.text)) && !isAliasDefinition(toks, k, calls)) return null;
    const col = byName.get(name);
    if (col) used.add(col);
  }
  return columns.filter((c) => used.has(c));
}

/** The token at `k` is the alias a call defines. */
function isAliasDefinition(toks: Token[], k: number, calls: RemoteCall[]): boolean {
  const end = toks[k - 1]?.end;
  const endAs = toks[k - 2]?.end;
  return calls.some((c) => c.end === end || (c.end === endAs && /^as$/i.test(toks[k - 1]?.text ?? '')));
}

/** The first row groups that hold `rows` rows (at least one when the file has any). */
export function rowGroupsFor(rowGroups: { numRows: number }[], rows: number | null): number[] {
  if (rows === null) return rowGroups.map((_, i) => i);
  const out: number[] = [];
  let have = 0;
  for (let i = 0; i < rowGroups.length && (have < rows || out.length === 0); i++) {
    out.push(i);
    have += rowGroups[i].numRows;
  }
  return out;
}

/** The query with each call replaced by its relation (a call without an alias keeps its function's name as one). */
export function rewriteCalls(sql: string, calls: { call: RemoteCall; relation: string }[]): string {
  let out = '';
  let at = 0;
  for (const { call, relation } of [...calls].sort((a, b) => a.call.start - b.call.start)) {
    out += `${sql.slice(at, call.start)}${relation}${call.alias === null ? ` AS ${call.fn}` : ''}`;
    at = call.end;
  }
  return out + sql.slice(at);
}
