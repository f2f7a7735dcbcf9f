/**
 * The one SQL-quoting helper: literals and identifiers for values that may come from trace text,
 * always quoted and escaped, never spliced raw. Every module that builds SQL uses these.
 */

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

/**
 * A string as a SQL expression that evaluates to exactly `s`, whatever its characters. DuckDB's parser reads the
 * SQL text as a C string, so a NUL inside a literal ends it ("unterminated quoted string"); VARCHAR itself holds
 * NUL, so a string with NUL is spelled as quoted pieces joined by `chr(0)` (test/unit/sql-quoting.test.ts).
 */
export function sqlString(s: string): string {
  const str = String(s);
  return str.includes('\0') ? `(${str.split('\0').map(quote).join(' || chr(0) || ')})` : quote(str);
}

/** An identifier (column, table, schema) in double quotes; any character but NUL, which no identifier can hold. */
export function sqlIdent(name: string): string {
  const str = String(name);
  if (str.includes('\0')) throw new Error(`A name holds a NUL character, which a SQL identifier cannot hold: ${JSON.stringify(str)}. Rename it.`);
  return `"${str.replaceAll('"', '""')}"`;
}

/** A name as a person types it into a query: bare when DuckDB reads it as it is (lower-case letters, digits, `_`), else sqlIdent. */
export function sqlName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : sqlIdent(name);
}

/** `a.b` as `"a"."b"`. */
export function sqlQualified(...parts: string[]): string {
  return parts.map(sqlIdent).join('.');
}

export function sqlStringList(xs: readonly string[]): string {
  return xs.length ? `[${xs.map(sqlString).join(', ')}]` : '[]::VARCHAR[]';
}

export function sqlNumber(n: number): string {
  if (!Number.isFinite(n)) throw new Error(`invalid number for SQL: ${n}`);
  return String(n);
}

/** `(v1), (v2), …` VALUES groups of one string column, each chunk under `maxChars` of SQL text. */
export function valuesChunks(values: readonly string[], maxChars = 48_000): string[] {
  const out: string[] = [];
  let cur = '';
  for (const v of values) {
    const lit = `(${sqlString(v)})`;
    if (lit.length + 2 > maxChars) throw new Error(`A value of ${lit.length} characters is too long to stage as SQL text; ids must stay under ${maxChars} characters.`);
    if (cur && cur.length + lit.length + 2 > maxChars) {
      out.push(cur);
      cur = '';
    }
    cur += cur ? `, ${lit}` : lit;
  }
  if (cur) out.push(cur);
  return out;
}
