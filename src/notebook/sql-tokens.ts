/**
 * A small SQL tokenizer and table-reference finder. DuckDB's json_serialize_sql lives in the
 * JSON extension, which the offline build lacks (decision 003), so references come from tokens:
 * strings, quoted identifiers, comments and CTE names never count as references.
 */

export type TokenType = 'ws' | 'comment' | 'string' | 'qident' | 'word' | 'number' | 'punct' | 'param';

export interface Token {
  type: TokenType;
  text: string;
  start: number;
  end: number;
}

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  const push = (type: TokenType, end: number) => {
    out.push({ type, text: sql.slice(i, end), start: i, end });
    i = end;
  };
  while (i < n) {
    const ch = sql[i];
    const next = sql[i + 1];
    if (/\s/.test(ch)) {
      let j = i + 1;
      // past the end sql[j] is undefined, and /\s/ does not match "undefined"
      while (/\s/.test(sql[j])) j++;
      push('ws', j);
    } else if (ch === '-' && next === '-') {
      // a line comment ends at LF or a lone CR (DuckDB's scanner: `--[^\n\r]*`)
      let j = i; // from the dashes: neither ends a line
      while (j < n && sql[j] !== '\n' && sql[j] !== '\r') j++;
      push('comment', j);
    } else if (ch === '/' && next === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < n && depth > 0) {
        if (sql[j] === '/' && sql[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (sql[j] === '*' && sql[j + 1] === '/') {
          depth--;
          j += 2;
        } else j++;
      }
      push('comment', j);
    } else if (ch === "'" || ((ch === 'E' || ch === 'e') && next === "'")) {
      let j = ch === "'" ? i + 1 : i + 2;
      const backslash = ch !== "'";
      // Stryker disable next-line EqualityOperator: at j = n, sql[j] is undefined, j only grows and Math.min below clamps the end to n
      while (j < n) {
        if (backslash && sql[j] === '\\') j += 2;
        else if (sql[j] === "'" && sql[j + 1] === "'") j += 2;
        else if (sql[j] === "'") break;
        else j++;
      }
      push('string', Math.min(j + 1, n));
    } else if (ch === '"') {
      let j = i + 1;
      // Stryker disable next-line EqualityOperator: at j = n, sql[j] is undefined, j only grows and Math.min below clamps the end to n
      while (j < n) {
        if (sql[j] === '"' && sql[j + 1] === '"') j += 2;
        else if (sql[j] === '"') break;
        else j++;
      }
      push('qident', Math.min(j + 1, n));
    } else if (ch === '$') {
      const tag = /^\$([A-Za-z_]\w*)?\$/.exec(sql.slice(i));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        push('string', close === -1 ? n : close + tag[0].length);
      } else {
        let j = i + 1;
        while (j < n && /\w/.test(sql[j])) j++;
        push('param', j);
      }
    } else if (/[A-Za-z_\u0080-\uffff]/.test(ch)) {
      let j = i + 1;
      while (j < n && /[\w$\u0080-\uffff]/.test(sql[j])) j++;
      push('word', j);
    } else if (/[0-9]/.test(ch) || (ch === '.' && /[0-9]/.test(next))) {
      let j = i + 1;
      while (j < n && /[0-9._eE]/.test(sql[j])) j++;
      push('number', j);
    } else if (ch === '?') {
      push('param', i + 1);
    } else {
      const two = sql.slice(i, i + 2);
      push('punct', ['::', '<=', '>=', '<>', '!=', '||', '->', '=>', '**', '//'].includes(two) ? i + 2 : i + 1);
    }
  }
  return out;
}

/** An identifier's name as DuckDB resolves it (case-insensitive; quotes removed). */
export function identName(t: Token): string {
  return (t.type === 'qident' ? t.text.slice(1, -1).replaceAll('""', '"') : t.text).toLowerCase();
}

export interface TableRef {
  /** Lower-cased name (the last part, for qualified names). */
  name: string;
  /** Schema / catalog parts before the name, lower-cased; [] when unqualified. */
  qualifier: string[];
  /** Span of the whole (possibly qualified) reference in the source. */
  start: number;
  end: number;
}

export interface SqlAnalysis {
  refs: TableRef[];
  ctes: string[];
  /** Statement head keywords (upper-cased), one per statement. */
  statements: string[];
  /** The SQL changes data or settings (INSERT, CREATE, COPY, ATTACH, SET …). */
  mutates: boolean;
}

const TABLE_AFTER = new Set(['from', 'join', 'into', 'update', 'table', 'describe', 'summarize', 'show', 'pivot', 'unpivot', 'copy']);
/** What `SHOW` lists when it is not `SHOW t` (DuckDB: SHOW TABLES, SHOW ALL TABLES, SHOW DATABASES). */
const SHOW_LISTS = new Set(['tables', 'all', 'databases']);
const END_FROM_LIST = new Set([
  'where', 'group', 'having', 'order', 'limit', 'offset', 'qualify', 'window', 'union', 'intersect', 'except',
  'select', 'returning', 'set', 'values', 'to', 'sample',
]);
/** Words after which `(` opens a subquery or list rather than a function call's arguments. */
const SUBQUERY_OPENERS = new Set([
  'from', 'join', 'in', 'exists', 'as', 'any', 'all', 'some', 'lateral', 'select', 'where', 'and', 'or', 'not', 'on',
  'union', 'intersect', 'except', 'values', 'with', 'array', 'materialized', 'then', 'else', 'when', 'having', 'copy',
  'is', 'by', 'distinct',
]);
// (`values` / `unnest` after FROM are always followed by `(`: the table-function rule skips them.)
/** Heads after which `TABLE t` names t (elsewhere `TABLE` is only a table at a statement head). */
const TABLE_HEADS = new Set(['describe', 'summarize', 'show']);
const NOT_A_TABLE = new Set(['lateral', 'only', 'select', 'with', 'table']);
const ANALYZE = new Set(['analyze', 'analyse']);
const EXPLAIN_OPTIONS = new Set([...ANALYZE, 'verbose']);
const MUTATING = new Set([
  'insert', 'update', 'delete', 'create', 'drop', 'alter', 'copy', 'attach', 'detach', 'set', 'reset', 'install',
  'load', 'pragma', 'checkpoint', 'force', 'vacuum', 'begin', 'commit', 'rollback', 'abort', 'export', 'import',
  'use', 'truncate', 'merge', 'call', 'comment', 'start', 'end', 'prepare', 'execute', 'deallocate',
]);

function significant(tokens: Token[]): Token[] {
  return tokens.filter((t) => t.type !== 'ws' && t.type !== 'comment');
}

function isIdent(t: Token | undefined): t is Token {
  return !!t && (t.type === 'word' || t.type === 'qident');
}

export function analyzeSql(sql: string): SqlAnalysis {
  const toks = significant(tokenize(sql));
  const ctes = new Set<string>();
  const refs: TableRef[] = [];
  const statements: string[] = [];
  let mutates = false;

  // Statement heads (and a WITH's main verb). EXPLAIN ANALYZE runs the statement it explains: that statement's
  // verb decides (`explain` stays the head); a plain EXPLAIN runs nothing.
  let headAt = 0;
  let depth = 0;
  let stmtHead: string | null = null;
  let verb: string | null = null;
  let runs = true;
  for (let k = 0; k <= toks.length; k++) {
    const t = toks[k];
    if (!t || (t.text === ';' && depth === 0)) {
      if (stmtHead) statements.push(stmtHead.toUpperCase());
      stmtHead = null;
      verb = null;
      headAt = k + 1;
      runs = true;
      continue;
    }
    if (t.text === '(') depth++;
    else if (t.text === ')') depth = Math.max(0, depth - 1);
    const lower = t.text.toLowerCase();
    if (k === headAt && t.type === 'word') {
      stmtHead ??= lower;
      verb = lower;
      if (runs && MUTATING.has(lower)) mutates = true;
      if (lower === 'explain') [headAt, runs] = explained(toks, k + 1);
    } else if (verb === 'with' && runs && depth === 0 && ['insert', 'update', 'delete', 'merge'].includes(lower)) {
      mutates = true;
    }
  }

  // CTE names: WITH [RECURSIVE] name [(cols)] AS [NOT] [MATERIALIZED] (…) [, name …]
  for (let k = 0; k < toks.length; k++) {
    if (toks[k].text.toLowerCase() !== 'with') continue;
    let p = k + 1;
    if (toks[p]?.text.toLowerCase() === 'recursive') p++;
    for (;;) {
      const name = toks[p];
      if (!isIdent(name)) break;
      p++;
      if (toks[p]?.text === '(') p = skipParens(toks, p);
      if (toks[p]?.text.toLowerCase() !== 'as') break;
      p++;
      while (['not', 'materialized'].includes(toks[p]?.text.toLowerCase())) p++;
      if (toks[p]?.text !== '(') break;
      ctes.add(identName(name));
      p = skipParens(toks, p);
      if (toks[p]?.text !== ',') break;
      p++;
    }
  }

  // Table positions: after FROM / JOIN / INTO …, and after commas of a FROM list at the same depth.
  const fromList: boolean[] = [];
  const inCall: boolean[] = [];
  // an UNPIVOT statement at this depth: its `INTO NAME k VALUE v` names columns, not a table
  const unpivot: boolean[] = [];
  let d = 0;
  let expect = false;
  let after: string | null = null;
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    // a keyword is a bare word: quoted identifiers and strings keep their quotes in text
    const lower = t.text.toLowerCase();
    if (t.text === '(') {
      const prev = toks[k - 1];
      d++;
      fromList[d] = false;
      // extract(year FROM t), trim(BOTH ' ' FROM s): a FROM inside a call's arguments is no table.
      inCall[d] = isIdent(prev) && !SUBQUERY_OPENERS.has(prev.text.toLowerCase());
      expect = false;
      continue;
    }
    if (t.text === ')') {
      d = Math.max(0, d - 1);
      continue;
    }
    if (t.text === ';') unpivot[d] = false;
    if (expect) {
      expect = false;
      if (isIdent(t) && !NOT_A_TABLE.has(lower)) {
        let end = k;
        const parts = [t];
        while (toks[end + 1]?.text === '.' && isIdent(toks[end + 2])) {
          parts.push(toks[end + 2]);
          end += 2;
        }
        if (toks[end + 1]?.text === '(' && after !== 'into') continue; // a table function, not INSERT INTO t (cols)
        const names = parts.map(identName);
        refs.push({ name: names[names.length - 1], qualifier: names.slice(0, -1), start: t.start, end: parts[parts.length - 1].end });
        k = end;
        continue;
      }
      if (lower === 'lateral' || lower === 'only') {
        expect = true;
        continue;
      }
    }
    if (TABLE_AFTER.has(lower)) {
      const prev = toks[k - 1];
      const atHead = !prev || prev.text === ';' || prev.text === '(' || prev.text === ')';
      if (inCall[d]) continue;
      // `UPDATE x` / `TABLE x` name a table only at a statement head (not `DO UPDATE SET`, `CREATE TABLE`).
      if (lower === 'update' && !atHead) continue;
      // `SHOW t` describes t at a statement head; SHOW TABLES / ALL TABLES / DATABASES list the catalog
      if (lower === 'show' && (!atHead || SHOW_LISTS.has(toks[k + 1]?.text.toLowerCase() ?? ''))) continue;
      if (lower === 'unpivot') unpivot[d] = true;
      if (lower === 'into' && unpivot[d] && toks[k + 1]?.text.toLowerCase() === 'name') continue;
      if (lower === 'table' && !atHead && !TABLE_HEADS.has(prev.text.toLowerCase())) continue;
      expect = true;
      after = lower;
      // (a JOIN follows a FROM at its depth, which set this already)
      if (lower === 'from') fromList[d] = true;
    } else if (END_FROM_LIST.has(lower)) fromList[d] = false;
    else if (t.text === ',' && fromList[d]) {
      expect = true;
      // Stryker disable next-line StringLiteral: `after` is only compared with 'into'
      after = ',';
    }
  }
  return { refs: refs.filter((r) => r.qualifier.length > 0 || !ctes.has(r.name)), ctes: [...ctes], statements, mutates };
}

/** Past `EXPLAIN`'s options (`ANALYZE`, `VERBOSE`, `(FORMAT json, ANALYZE)`): where the explained statement
 * starts, and whether it runs (ANALYZE named anywhere in the options). */
function explained(toks: Token[], from: number): [number, boolean] {
  let p = from;
  for (;;) {
    if (toks[p]?.text === '(') p = skipParens(toks, p);
    else if (EXPLAIN_OPTIONS.has(toks[p]?.text.toLowerCase())) p++;
    else return [p, toks.slice(from, p).some((t) => ANALYZE.has(t.text.toLowerCase()))];
  }
}

function skipParens(toks: Token[], p: number): number {
  let depth = 0;
  for (; p < toks.length; p++) {
    if (toks[p].text === '(') depth++;
    else if (toks[p].text === ')' && --depth === 0) return p + 1;
  }
  return p;
}

/** Replace the unqualified references whose name `rename` maps, by their exact spans. */
export function rewriteRefs(sql: string, refs: TableRef[], rename: (name: string) => string | null): string {
  let out = '';
  let at = 0;
  for (const r of [...refs].sort((a, b) => a.start - b.start)) {
    if (r.qualifier.length) continue;
    const to = rename(r.name);
    if (to === null) continue;
    out += sql.slice(at, r.start) + to;
    at = r.end;
  }
  return out + sql.slice(at);
}
