/**
 * A fingerprint of everything prepareSchema creates (DDL, curation helpers, the schema version): a pool
 * whose pool_meta holds it is opened without running any of it (docs/decisions/036). Any change to
 * the DDL or a helper's SQL changes it, so the next open recreates them.
 */
import { CURATION_HELPERS } from './curation-sql';
import { DDL, SCHEMA_VERSION } from './schema';

/** FNV-1a, 32 bits, over UTF-16 code units, twice with different seeds: a change detector, not a security hash. */
function fnv(text: string, seed: number): string {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

export function schemaHash(parts: readonly string[]): string {
  const text = parts.join('\u0000');
  return fnv(text, 0x811c9dc5) + fnv(text, 0x01234567);
}

export const SCHEMA_HASH = schemaHash([String(SCHEMA_VERSION), ...DDL, ...CURATION_HELPERS.map((h) => h.sql)]);

/** The views and macros prepareSchema creates (by name): a user's DROP of one is repaired at the next open. */
export const SCHEMA_OBJECTS: readonly string[] = [
  ...new Set([...DDL, ...CURATION_HELPERS.map((h) => h.sql)].flatMap((sql) => [...sql.matchAll(/CREATE OR REPLACE (?:VIEW|MACRO) ([a-z_]+)/g)].map((m) => m[1]))),
];

/** One catalog query: how many of SCHEMA_OBJECTS exist (views, and macros, which DuckDB lists once per overload). */
export const SCHEMA_OBJECTS_SQL = `SELECT count(DISTINCT n)::INTEGER AS n FROM (
  SELECT view_name AS n FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'
  UNION ALL SELECT function_name FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro') AND schema_name = 'main'
) WHERE n IN (${SCHEMA_OBJECTS.map((n) => `'${n}'`).join(', ')})`;
