/** A query wrapped: its row count, its first rows (the export preview's; a screen's own SQL lives beside the screen, views/<screen>/queries.ts). */

/** `n` (INTEGER): how many rows a query returns. */
export function countOf(sql: string): string {
  return `SELECT count(*)::INTEGER AS n FROM (${sql})`;
}

/** The first `n` rows of a query. */
export function headOf(sql: string, n: number): string {
  return `SELECT * FROM (${sql}) LIMIT ${Math.max(0, Math.floor(n))}`;
}
