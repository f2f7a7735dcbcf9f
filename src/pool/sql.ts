/**
 * The one SQL-quoting helper: literals and identifiers for values that may come from trace text,
 * always quoted and escaped, never spliced raw. Every module that builds SQL uses these.
 */

export function sqlString(s: string): string {
  return `'${String(s).replaceAll("'", "''")}'`;
}

/** An identifier (column, table, schema) in double quotes, any character allowed. */
export function sqlIdent(name: string): string {
  return `"${String(name).replaceAll('"', '""')}"`;
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
