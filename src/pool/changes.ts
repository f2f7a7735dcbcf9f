/**
 * The pool's change feed, worker side (issue 14; docs/decisions/021). Every statement the engine runs
 * passes through `ChangeLog.note`, which records the tables it writes; the worker posts them to the
 * main thread after each call, and PoolClient tells its subscribers. No writer announces its changes.
 *
 * Which tables a statement writes is read from its SQL: DuckDB-WASM exposes no per-table change
 * counter, its EXPLAIN names no INSERT target, json_serialize_sql serialises only SELECT, and
 * duckdb_tables()' estimated_size misses an UPDATE. The scan below is a lexer (strings, quoted
 * names, comments and dollar quotes are skipped as DuckDB's own lexer does) over the statement
 * forms that write: INSERT / UPDATE / DELETE / TRUNCATE / MERGE / COPY … FROM / CREATE / ALTER / DROP.
 * A statement it cannot place (ATTACH, IMPORT DATABASE, DROP SCHEMA …) reports ALL_TABLES.
 */

/** Reported when a statement may have changed anything. */
export const ALL_TABLES = '*';

/** Views of the pool's schema and the tables they read: a change of one of these tables changes the view. */
const VIEWS: Record<string, string[]> = {
  trajectories: ['steps', 'trajectory_stats', 'curation'],
};

/** The tables plus the pool's views that read them. */
export function withViews(tables: Iterable<string>): string[] {
  const out = new Set(tables);
  for (const [view, reads] of Object.entries(VIEWS)) if (out.has(ALL_TABLES) || reads.some((t) => out.has(t))) out.add(view);
  return [...out].sort();
}

type Token = { kind: 'word' | 'ident' | 'punct'; text: string };

/** DuckDB's tokens minus comments and literals; words lower-cased, quoted identifiers as written. */
function lex(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const ch = sql[i];
    if (/\s/.test(ch)) i++;
    else if (ch === '-' && sql[i + 1] === '-') {
      const e = sql.indexOf('\n', i);
      i = e < 0 ? n : e + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const e = sql.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
    } else if (ch === "'") {
      i++;
      while (i < n) {
        if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i++;
    } else if (ch === '"') {
      let text = '';
      i++;
      while (i < n) {
        if (sql[i] === '"' && sql[i + 1] === '"') {
          text += '"';
          i += 2;
        } else if (sql[i] === '"') break;
        else text += sql[i++];
      }
      i++;
      out.push({ kind: 'ident', text });
    } else if (ch === '$') {
      const m = /^\$([A-Za-z_]\w*)?\$/.exec(sql.slice(i));
      if (m) {
        const e = sql.indexOf(m[0], i + m[0].length);
        i = e < 0 ? n : e + m[0].length;
      } else i++;
    } else if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][\w$]*/.exec(sql.slice(i, i + 256)) as RegExpExecArray;
      // an E'…' / X'…' literal prefix is part of the string that follows
      if (sql[i + m[0].length] === "'" && m[0].length === 1) {
        i += 1;
        continue;
      }
      out.push({ kind: 'word', text: m[0].toLowerCase() });
      i += m[0].length;
    } else {
      out.push({ kind: 'punct', text: ch });
      i++;
    }
  }
  return out;
}

/** What one SQL text does to the pool: the tables it writes and how it leaves a transaction. */
export interface StatementEffect {
  tables: string[];
  /** 'begin' when the text opens a transaction it does not end, 'end' when it ends one (COMMIT / ROLLBACK). */
  tx: 'begin' | 'end' | null;
}

const isName = (t: Token | undefined) => !!t && (t.kind === 'ident' || t.kind === 'word');

/**
 * Tables an SQL text (one statement or several) writes, lower-cased and without the main schema
 * (`main.steps` → `steps`; another schema stays qualified: `nb_x.v`). Temporary tables and names
 * starting with `_` (scratch tables of the app's own statements) are left out.
 */
export function statementEffect(sql: string): StatementEffect {
  const toks = lex(sql);
  const tables = new Set<string>();
  let tx: StatementEffect['tx'] = null;
  let start = true;
  const word = (k: number) => (toks[k]?.kind === 'word' ? toks[k].text : '');
  /** The name at k (a.b.c), or null; `at` is where it ends. */
  const nameAt = (k: number): { name: string; at: number; temp: boolean } | null => {
    if (!isName(toks[k])) return null;
    const parts = [toks[k].text];
    let j = k + 1;
    while (toks[j]?.text === '.' && isName(toks[j + 1])) {
      parts.push(toks[j + 1].text);
      j += 2;
    }
    const lower = parts.map((p) => p.toLowerCase());
    const temp = lower.length > 1 && lower[lower.length - 2] === 'temp';
    while (lower.length > 1 && ['main', 'memory', 'temp'].includes(lower[0])) lower.shift();
    return { name: lower.join('.'), at: j, temp };
  };
  const add = (k: number, temp = false) => {
    const n = nameAt(k);
    if (n && !temp && !n.temp && !n.name.split('.').pop()?.startsWith('_')) tables.add(n.name);
    return n?.at ?? k;
  };
  for (let k = 0; k < toks.length; k++) {
    const t = toks[k];
    if (t.kind === 'punct') {
      if (t.text === ';') start = true;
      continue;
    }
    const w = t.kind === 'word' ? t.text : '';
    const prev = word(k - 1);
    if (start) {
      start = false;
      if (w === 'begin' || (w === 'start' && word(k + 1) === 'transaction')) tx = 'begin';
      else if (w === 'commit' || w === 'rollback' || w === 'abort' || (w === 'end' && (toks.length === k + 1 || toks[k + 1].text === ';' || word(k + 1) === 'transaction'))) tx = 'end';
      else if (w === 'attach' || w === 'detach' || w === 'import' || w === 'load' || w === 'install') tables.add(ALL_TABLES);
    }
    if (w === 'into' && (prev === 'insert' || prev === 'merge' || prev === 'replace' || prev === 'ignore')) add(k + 1);
    else if (w === 'update' && prev !== 'do' && prev !== 'for' && toks[k - 1]?.text !== '(' ) {
      if (isName(toks[k + 1]) && (word(k + 2) === 'set' || toks[k + 2]?.text === '.' || isName(toks[k + 2]))) add(k + 1);
    } else if (w === 'from' && prev === 'delete') add(k + 1);
    else if (w === 'truncate') add(word(k + 1) === 'table' ? k + 2 : k + 1);
    else if (w === 'copy' && isName(toks[k + 1])) {
      const n = nameAt(k + 1);
      if (n && word(n.at) === 'from') add(k + 1);
    } else if ((w === 'table' || w === 'view') && (prev === 'alter' || prev === 'drop' || prev === 'create' || prev === 'replace' || prev === 'temp' || prev === 'temporary' || prev === 'materialized')) {
      let j = k + 1;
      if (word(j) === 'if') j += word(j + 1) === 'not' ? 3 : 2;
      const temp = prev === 'temp' || prev === 'temporary';
      j = add(j, temp);
      // DROP TABLE a, b
      while (prev === 'drop' && toks[j]?.text === ',') j = add(j + 1);
    } else if (w === 'schema' && prev === 'drop') tables.add(ALL_TABLES);
  }
  return { tables: [...tables].sort(), tx };
}

/**
 * Per-connection record of written tables. Inside an explicit transaction the tables wait for its
 * end, so subscribers re-read committed data; `take()` hands over what is ready.
 */
export class ChangeLog {
  private pending = new Map<object, Set<string>>();
  private inTx = new WeakSet<object>();
  private ready = new Set<string>();

  /** A statement ran (or is about to run) on `conn`. */
  note(sql: string, conn: object): void {
    const e = statementEffect(sql);
    if (e.tx === 'begin') this.inTx.add(conn);
    this.noteTables(e.tables, conn);
    if (e.tx === 'end') this.closed(conn);
  }

  /** Rows went into `tables` other than through SQL (Arrow inserts). */
  noteTables(tables: string[], conn: object): void {
    if (!tables.length) return;
    let s = this.pending.get(conn);
    if (!s) this.pending.set(conn, (s = new Set()));
    for (const t of tables) s.add(t);
    if (!this.inTx.has(conn)) this.release(conn);
  }

  /** A connection closed: whatever it noted is over (committed or rolled back). */
  closed(conn: object): void {
    this.inTx.delete(conn);
    this.release(conn);
  }

  private release(conn: object): void {
    const s = this.pending.get(conn);
    if (!s) return;
    this.pending.delete(conn);
    for (const t of s) this.ready.add(t);
  }

  /** Tables written since the last take (with the views over them), or an empty list. */
  take(): string[] {
    if (!this.ready.size) return [];
    const out = withViews(this.ready);
    this.ready.clear();
    return out;
  }
}

/** The message the pool worker posts to the main thread (beside Comlink's, which carry an id). */
export interface PoolChangeMessage {
  awPoolChange: string[];
}

export function isPoolChangeMessage(data: unknown): data is PoolChangeMessage {
  return !!data && typeof data === 'object' && Array.isArray((data as PoolChangeMessage).awPoolChange);
}

/** The pool engine's one change log (the worker posts it after each call). */
export const changes = new ChangeLog();
